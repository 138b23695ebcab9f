#!/usr/bin/env bash
# The index's write-ahead log while the writer stays busy: runs `cachectl bench` (release) with
# ENTRIES tiny entries and samples the size of index.sqlite-wal every 0.2 s during the run; prints
# the largest size seen. The store's bound is 32 MiB (StoreConfiguration.indexLogBoundBytes).
#   Benchmarks/IndexLog/run.sh [ENTRIES]      (default 300000)
set -euo pipefail
cd "$(dirname "$0")/../.."
entries=${1:-300000}
swift build -c release --product cachectl >/dev/null
folder=$(mktemp -d)
trap 'rm -rf "$folder"' EXIT
.build/release/cachectl bench --path "$folder/store" --entries "$entries" --sizes tiny --reads 1000 --json >"$folder/report.json" &
bench=$!
largest=0
while kill -0 "$bench" 2>/dev/null; do
  size=$(stat -c %s "$folder/store/index.sqlite-wal" 2>/dev/null || echo 0)
  [ "$size" -gt "$largest" ] && largest=$size
  sleep 0.2
done
wait "$bench"
echo "entries $entries: largest index.sqlite-wal $largest bytes ($((largest / 1048576)) MiB)"
