#!/usr/bin/env bash
# The storage core's figures, as same-run ratios: ROUNDS rounds, each running `cachectl bench
# --baseline` (release) store-first and then baseline-first, for the feed workload and for a
# million tiny entries; with REFERENCE (a folder holding another build's release cachectl) the
# feed workload also runs on that build beside each, in the opposite order; WORKLOADS=feed (or
# tiny) runs one workload only. Prints the medians.
#   Benchmarks/StorageFigures/run.sh [ROUNDS] [REFERENCE]     (default 3 rounds, no reference)
# Run it on a quiet machine: nothing else building or testing beside it.
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-3}
reference=${2:-}
swift build -c release --product cachectl >/dev/null
out=$(mktemp -d)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
bench() { # NAME BINARY ARGS…
  local name=$1 binary=$2
  shift 2
  "$binary" bench --path "$scratch/run" --json "$@" >"$out/$name.json"
  rm -rf "$scratch/run"
  echo "  $name done" >&2
}
for round in $(seq 1 "$rounds"); do
  for order in store-first baseline-first; do
    flag=()
    [ "$order" = baseline-first ] && flag=(--baseline-first)
    echo "round $round, $order" >&2
    if [ "${WORKLOADS:-feed tiny}" = tiny ]; then
      bench "tiny-$round-$order" .build/release/cachectl --baseline "${flag[@]}" --entries 1000000 --sizes tiny --reads 100000
      continue
    fi
    if [ -n "$reference" ] && [ "$order" = baseline-first ]; then
      bench "feed-reference-$round-$order" "$reference/cachectl"
    fi
    bench "feed-$round-$order" .build/release/cachectl --baseline "${flag[@]}"
    if [ -n "$reference" ] && [ "$order" = store-first ]; then
      bench "feed-reference-$round-$order" "$reference/cachectl"
    fi
    [ "${WORKLOADS:-feed tiny}" = feed ] && continue
    bench "tiny-$round-$order" .build/release/cachectl --baseline "${flag[@]}" --entries 1000000 --sizes tiny --reads 100000
  done
done
python3 "$(dirname "$0")/summarize.py" "$out"
echo "reports: $out" >&2
