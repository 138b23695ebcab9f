"""Medians of Benchmarks/StorageFigures/run.sh's reports: python3 summarize.py FOLDER."""
import json
import pathlib
import statistics
import sys

folder = pathlib.Path(sys.argv[1])


def reports(prefix):
    return [json.loads(path.read_text()) for path in sorted(folder.glob(prefix + "-*.json"))
            if not path.name.startswith(prefix + "-reference")]


def line(label, values, unit="", digits=2):
    if not values:
        return
    low, high = min(values), max(values)
    print(f"{label}: median {statistics.median(values):.{digits}f}{unit} "
          f"(range {low:.{digits}f}–{high:.{digits}f}, {len(values)} runs)")


for workload in ["feed", "tiny"]:
    runs = reports(workload)
    if not runs:
        continue
    print(f"== {workload}")
    store = [run["store"] for run in runs]
    raw = [run["raw_lmdb"] for run in runs]
    line("store inserts/s", [s["insert_per_s"] for s in store], digits=0)
    line("raw LMDB inserts/s", [r["insert_per_s"] for r in raw], digits=0)
    line("inserts, store ÷ raw LMDB", [s["insert_per_s"] / r["insert_per_s"] for s, r in zip(store, raw)], "×")
    line("reads, store ÷ raw LMDB", [s["read_per_s"] / r["read_per_s"] for s, r in zip(store, raw)], "×")
    line("guarded get ÷ unguarded get (time)", [r["guarded_read_cost"] for r in raw if r.get("guarded_read_cost")], "×", 3)
    line("first warm reopen after the inserts", [s["open_ms"] for s in store], " ms")
    line("warm reopen, median of nine", [s["open_warm_median_ms"] for s in store if s["open_warm_median_ms"]], " ms")
    line("cold reopen", [s["open_cold_ms"] for s in store if s["open_cold_ms"]], " ms")
    line("eviction to 50 %", [s["evict_ms"] for s in store], " ms", 1)
    line("entries evicted", [s["evicted_entries"] for s in store], "", 0)
    line("put during eviction p99", [s["put_during_evict_p99_ms"] for s in store], " ms")
    pairs = [(json.loads((folder / path.name.replace("-reference", "")).read_text())["store"], json.loads(path.read_text()))
             for path in sorted(folder.glob(workload + "-reference-*.json"))]
    if pairs:
        line("reference build: eviction to 50 %", [ref["evict_ms"] for _, ref in pairs], " ms", 1)
        line("eviction, this build ÷ reference (time)", [mine["evict_ms"] / ref["evict_ms"] for mine, ref in pairs], "×")
        line("reference build: first warm reopen", [ref["open_ms"] for _, ref in pairs], " ms")
        line("reference build: cold reopen", [ref["open_cold_ms"] for _, ref in pairs if ref["open_cold_ms"]], " ms")
        line("cold reopen, this build ÷ reference (time)",
             [mine["open_cold_ms"] / ref["open_cold_ms"] for mine, ref in pairs if mine["open_cold_ms"] and ref["open_cold_ms"]], "×")
