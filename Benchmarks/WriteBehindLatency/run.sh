#!/usr/bin/env bash
# The write-behind table of Benchmarks/RESULTS.md: network loads from a loopback origin with a disk
# cache on a disk kept slow by a write-back storm (two writers filling 512 MiB files on the store's
# file system and fsyncing them, over and over), against the same loads with no disk cache, in
# the same run; and the same on a quiet disk. Each run times every set-up in one order, then in
# the reverse order, each on a new store. Prints one JSON line per set-up and run, then the
# medians as a table. DURABILITY is the store's: periodic (the default) or each-commit.
#   Benchmarks/WriteBehindLatency/run.sh [RUNS] [LOADS] [DURABILITY]
set -euo pipefail
cd "$(dirname "$0")"
runs="${1:-3}"
loads="${2:-200}"
durability="${3:-periodic}"
swift build -c release >/dev/null
bin="$(swift build -c release --show-bin-path)/write-behind-latency"
work="$(mktemp -d "${TMPDIR:-/tmp}/write-behind.XXXXXX")"
results="$work/results.jsonl"
storm_pids=()
stop_storm() {
  touch "$work/stop"
  for pid in "${storm_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  storm_pids=()
  rm -f "$work/stop" "$work"/storm.*
}
trap 'stop_storm; rm -rf "$work"' EXIT
start_storm() {
  for writer in 1 2; do
    (while [ ! -e "$work/stop" ]; do
      dd if=/dev/zero of="$work/storm.$writer" bs=1M count=512 conv=fsync status=none
    done) &
    storm_pids+=($!)
  done
  sleep 3  # dirty pages pile up before the first load
}
modes=(no-disk write-behind wait-for-commit)
measure() {  # DISK
  for run in $(seq "$runs"); do
    for order in forward reverse; do
      if [ "$order" = forward ]; then list=("${modes[@]}"); else list=(wait-for-commit write-behind no-disk); fi
      for mode in "${list[@]}"; do
        store="$work/store-$1-$run-$order-$mode"
        line="$("$bin" "$mode" "$store" "$loads" "$durability")"
        rm -rf "$store"
        echo "${line%\}},\"disk\":\"$1\",\"run\":$run,\"order\":\"$order\"}" | tee -a "$results"
      done
    done
  done
}
measure quiet
start_storm
measure storm
stop_storm
python3 - "$results" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
print("| durability | disk | set-up | median per load | p99 per load | writes committed | dropped |")
print("|---|---|---|---|---|---|---|")
for disk in ("quiet", "storm"):
    for mode in ("no-disk", "write-behind", "wait-for-commit"):
        group = [r for r in rows if r["disk"] == disk and r["mode"] == mode]
        med = statistics.median(r["medianMs"] for r in group)
        p99 = statistics.median(r["p99Ms"] for r in group)
        lo, hi = min(r["medianMs"] for r in group), max(r["medianMs"] for r in group)
        plo, phi = min(r["p99Ms"] for r in group), max(r["p99Ms"] for r in group)
        committed = statistics.median(r["committed"] for r in group)
        dropped = sum(r["dropped"] for r in group)
        print(f"| {group[0]['durability']} | {disk} | {mode} | {med:.2f} ms ({lo:.2f}–{hi:.2f}) | {p99:.2f} ms ({plo:.2f}–{phi:.2f}) | {committed:.0f} | {dropped} |")
PY
