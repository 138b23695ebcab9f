#!/usr/bin/env bash
# The least a cold thumbnail costs libvips and Pillow on this machine, for one photo: see floor.c
# and pillow.py. Uses the image proxy benchmark's generated photos and its thumbor environment
# (Proxy/bench/run.sh makes both); PHOTO=path picks another JPEG.
#   Benchmarks/ThumbnailFloor/run.sh
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
BENCH_DIR=${BENCH_DIR:-"$HERE/../../Proxy/bench-out"}
PHOTO=${PHOTO:-"$BENCH_DIR/images/gen-00.jpg"}
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
cc -O2 "$HERE/floor.c" -o "$out/floor" $(pkg-config --cflags --libs vips)
echo "libvips $(pkg-config --modversion vips), $PHOTO:"
"$out/floor" "$PHOTO"
echo "Pillow (thumbor's engine):"
"$BENCH_DIR/venv/bin/python" "$HERE/pillow.py" "$PHOTO"
