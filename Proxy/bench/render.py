"""Turns the JSON lines of a benchmark run into the Markdown tables of Benchmarks/RESULTS.md: each
row's median over the runs (rounds and orders), then the issue's goals as ratios taken per run
between servers of the same round and order, and their median.
Usage: render.py RESULTS.jsonl"""
import json
import statistics
import sys

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
FIELDS = ["rps", "p50_ms", "p99_ms", "cpu_s_per_1000", "peak_rss_mb", "peak_pss_mb"]


def run_of(row):
    return (row.get("round", 1), row.get("order", "forward"))


groups = {}
for row in rows:
    groups.setdefault((row["scenario"], row["system"], row["connections"]), []).append(row)


def median(values):
    values = [value for value in values if value is not None]
    return statistics.median(values) if values else None


print("| Scenario | Server | Conns | Runs | Requests/s | p50 ms | p99 ms | CPU s / 1,000 req | Peak RSS MB | Peak PSS MB | Non-2xx/3xx |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for (scenario, system, connections), runs in groups.items():
    m = {field: median([run.get(field) for run in runs]) for field in FIELDS}
    print("| %s | %s | %d | %d | %.0f | %.2f | %.2f | %.3f | %.1f | %s | %d |" % (
        scenario, system, connections, len(runs), m["rps"], m["p50_ms"], m["p99_ms"], m["cpu_s_per_1000"],
        m["peak_rss_mb"], "%.1f" % m["peak_pss_mb"] if m["peak_pss_mb"] is not None else "-",
        sum(run["non_2xx"] for run in runs)))


def ratios(scenario, connections, other):
    """Per run: the proxy's requests/s over `other`'s in the same round and order."""
    mine = {run_of(row): row["rps"] for row in groups.get((scenario, "imagecache-proxy", connections), [])}
    theirs = {run_of(row): row["rps"] for row in groups.get((scenario, other, connections), [])}
    return [mine[key] / theirs[key] for key in mine if key in theirs and theirs[key] > 0]


def spread(values, unit="×"):
    if not values:
        return "not measured"
    return "%.2f%s (%.2f–%.2f, %d runs)" % (statistics.median(values), unit, min(values), max(values), len(values))


connections = sorted({row["connections"] for row in rows})
print()
print("| goal (issue 39) | measured, median per run |")
print("|---|---|")
top = max(connections)
print("| cached, %d connections: at least nginx's hit throughput | %s |" % (top, spread(ratios("cached", top, "nginx"))))
print("| cached, %d connections: p99 under 5 ms | %s |" % (
    top, spread([row["p99_ms"] for row in groups.get(("cached", "imagecache-proxy", top), [])], " ms")))
for count in connections:
    print("| cold, %d connections: at least 3× thumbor | %s |" % (count, spread(ratios("cold", count, "thumbor"))))
    print("| cold, %d connections: at least 2× nginx's image filter | %s |" % (count, spread(ratios("cold", count, "nginx"))))
for scenario in ("cached", "cold"):
    runs = groups.get((scenario, "imagecache-proxy", top), [])
    print("| %s, %d connections: peak RSS under 256 MB | %s (PSS %s) |" % (
        scenario, top, spread([row["peak_rss_mb"] for row in runs], " MB"),
        spread([row["peak_pss_mb"] for row in runs if row.get("peak_pss_mb") is not None], " MB")))
