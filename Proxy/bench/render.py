"""Turns the JSON lines of a benchmark run into the Markdown table of Benchmarks/RESULTS.md.
Usage: render.py RESULTS.jsonl"""
import json
import sys

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
print("| Scenario | Server | Conns | Requests/s | p50 ms | p99 ms | CPU s / 1,000 req | Peak RSS MB | Peak PSS MB | Non-2xx/3xx |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for row in rows:
    print("| %s | %s | %d | %.0f | %.2f | %.2f | %.3f | %.1f | %s | %d |" % (
        row["scenario"], row["system"], row["connections"], row["rps"], row["p50_ms"], row["p99_ms"],
        row["cpu_s_per_1000"], row["peak_rss_mb"],
        "%.1f" % row["peak_pss_mb"] if "peak_pss_mb" in row else "-", row["non_2xx"]))
