-- Requests the paths in the file named by WRK_PATHS, one after another: each thread takes every
-- n-th path from its own offset, so no two requests ask for the same path until the list wraps.
local threads = {}
local counter = 1

function setup(thread)
  thread:set("id", counter)
  thread:set("count", 0)
  table.insert(threads, thread)
  counter = counter + 1
end

function init(args)
  paths = {}
  for line in io.lines(os.getenv("WRK_PATHS")) do paths[#paths + 1] = line end
  stride = tonumber(os.getenv("WRK_THREADS") or "1")
  index = id - 1
end

function request()
  local path = paths[(index % #paths) + 1]
  index = index + stride
  return wrk.format("GET", path)
end
