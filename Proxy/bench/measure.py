"""Runs wrk against a server and measures the server while it runs: requests/s and latency
percentiles from wrk, processor seconds per 1,000 requests and peak memory of the server's whole
process tree (workers and decode children included): resident memory summed over the processes
(pages shared between them counted in each), sampled every 50 ms, and proportional set size (each
shared page divided among the processes that map it, so the tree's sum counts it once), every 500 ms.
Usage: measure.py PID PATHS_FILE CONNECTIONS SECONDS URL_BASE  -> one JSON line on stdout"""
import json
import os
import re
import subprocess
import sys
import threading
import time

pid, paths, connections, seconds, base = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
TICKS = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


def tree(root):
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(entry))
        except OSError:
            pass
    found, stack = [], [root]
    while stack:
        current = stack.pop()
        found.append(current)
        stack.extend(children.get(current, []))
    return found


def cpu_seconds(pids):
    total = 0
    for process in pids:
        try:
            with open("/proc/%d/stat" % process) as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            # utime, stime, and the reaped children's cutime, cstime (decode workers that ended).
            total += sum(int(value) for value in fields[11:15])
        except OSError:
            pass
    return total / TICKS


def rss_bytes(pids):
    total = 0
    for process in pids:
        try:
            with open("/proc/%d/statm" % process) as handle:
                total += int(handle.read().split()[1]) * PAGE
        except OSError:
            pass
    return total


def pss_bytes(pids):
    total = 0
    for process in pids:
        try:
            with open("/proc/%d/smaps_rollup" % process) as handle:
                for line in handle:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1]) * 1024
                        break
        except OSError:
            pass
    return total


peak = [0, 0]
running = [True]


def sample():
    # Resident memory every 50 ms; proportional memory every 500 ms, because reading it walks
    # every mapping of every process, and at 50 ms that walk took a tenth of the two cores the
    # servers and wrk share.
    ticks = 0
    while running[0]:
        processes = tree(pid)
        peak[0] = max(peak[0], rss_bytes(processes))
        if ticks % 10 == 0:
            peak[1] = max(peak[1], pss_bytes(processes))
        ticks += 1
        time.sleep(0.05)


sampler = threading.Thread(target=sample)
sampler.start()
before = cpu_seconds(tree(pid))
threads = min(connections, 2)
environment = dict(os.environ, WRK_PATHS=paths, WRK_THREADS=str(threads))
output = subprocess.run(
    ["wrk", "-t%d" % threads, "-c%d" % connections, "-d%ds" % seconds, "--timeout", "30s", "--latency",
     "-s", os.path.join(os.path.dirname(os.path.abspath(__file__)), "paths.lua"), base],
    capture_output=True, text=True, env=environment, timeout=seconds + 60).stdout
after = cpu_seconds(tree(pid))
running[0] = False
sampler.join()


def duration_ms(text):
    number, unit = re.match(r"([\d.]+)(us|ms|s|m)", text).groups()
    return float(number) * {"us": 0.001, "ms": 1, "s": 1000, "m": 60000}[unit]


if not re.search(r"(\d+) requests in", output) or not re.search(r"99%\s+\S+", output):
    sys.stderr.write("wrk printed no result:\n" + output + "\n")
    sys.exit(1)
requests = int(re.search(r"(\d+) requests in", output).group(1))
errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
socket_errors = re.search(r"Socket errors: (.*)", output)
result = {
    "connections": connections,
    "requests": requests,
    "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1)),
    "p50_ms": duration_ms(re.search(r"^\s+50%\s+(\S+)", output, re.M).group(1)),
    "p99_ms": duration_ms(re.search(r"^\s+99%\s+(\S+)", output, re.M).group(1)),
    "cpu_s_per_1000": round((after - before) / max(requests, 1) * 1000, 3),
    "peak_rss_mb": round(peak[0] / 1048576, 1),
    "peak_pss_mb": round(peak[1] / 1048576, 1),
    "non_2xx": int(errors.group(1)) if errors else 0,
    "socket_errors": socket_errors.group(1) if socket_errors else "",
}
print(json.dumps(result))
