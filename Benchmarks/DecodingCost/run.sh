#!/usr/bin/env bash
# The hostile-input table of Benchmarks/RESULTS.md: each input of hostile-inputs.py decoded as a
# 340-pixel thumbnail by a release build of decoding-cost, one process per input, three runs each;
# prints one JSON line per run.
#   Benchmarks/DecodingCost/run.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")"
runs="${1:-3}"
swift build -c release >/dev/null
inputs="$(mktemp -d)"
trap 'rm -rf "$inputs"' EXIT
python3 hostile-inputs.py "$inputs"
bin="$(swift build -c release --show-bin-path)"
# The decode worker is found beside the executable, where the root package's build puts it.
worker_bin="$(cd ../.. && swift build -c release --product imagecache-decode-worker --show-bin-path 2>/dev/null || true)"
if [ -n "$worker_bin" ]; then
  (cd ../.. && swift build -c release --product imagecache-decode-worker >/dev/null 2>&1) && export SWIFT_IMAGE_CACHE_DECODE_WORKER="$worker_bin/imagecache-decode-worker"
fi
for run in $(seq "$runs"); do
  for file in "$inputs"/*; do
    "$bin/decoding-cost" "$file" 340
  done
done
