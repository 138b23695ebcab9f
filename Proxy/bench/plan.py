"""Writes the request paths of one benchmark run to stdout, one a line.
Usage: plan.py SYSTEM SCENARIO IMAGES_FOLDER ORIGIN_PORT KEY [OFFSET STRIDE COUNT]
  SYSTEM: proxy | nginx | thumbor
  SCENARIO: cached (256-pixel thumbnails of /fresh/ sources), cold (a size not asked before for
  every path, so no thumbnail is cached: the sources in turn at 100 + OFFSET pixels, then STRIDE
  more, and so on; runs given offsets 0 to STRIDE - 1 ask disjoint sizes from the same range, so
  each measures thumbnails of the same sizes), short (256-pixel thumbnails of /short/ sources,
  max-age=1) or warm (one small thumbnail per source, to fetch every original once)."""
import base64
import hashlib
import hmac
import os
import sys

system, scenario, folder, origin_port, key = sys.argv[1:6]
names = sorted(os.listdir(folder))


def path(prefix, name, side):
    source = "127.0.0.1:%s/%s/%s" % (origin_port, prefix, name)
    if system == "nginx":
        return "/%dx%d/%s/%s" % (side, side, prefix, name)
    if system == "thumbor":
        return "/unsafe/fit-in/%dx%d/%s" % (side, side, source)
    encoded = base64.urlsafe_b64encode(("http://" + source).encode()).decode().rstrip("=")
    signed = "fit:%dx%d/%s" % (side, side, encoded)
    signature = base64.urlsafe_b64encode(hmac.new(key.encode(), signed.encode(), hashlib.sha256).digest()).decode().rstrip("=")
    return "/%s/%s" % (signature, signed)


if scenario == "cached":
    lines = [path("fresh", name, 256) for name in names]
elif scenario == "short":
    lines = [path("short", name, 256) for name in names]
elif scenario == "warm":
    lines = [path(prefix, name, 32) for prefix in ("fresh", "short") for name in names]
else:
    offset, stride, count = int(sys.argv[6]), int(sys.argv[7]), int(sys.argv[8])
    sizes = (100 + offset + stride * (index // len(names)) for index in range(count))
    lines = [path("fresh", names[index % len(names)], size) for index, size in enumerate(sizes)]
print("\n".join(lines))
