#!/usr/bin/env bash
# Installs what the side-by-side benchmark compares against, for the benchmark only: nginx with its
# image filter module and wrk from Debian, thumbor from PyPI in a virtual environment under
# $BENCH_DIR (bench-out/ by default). nginx's package would start a server on port 80: the
# install runs with services kept from starting.
set -euo pipefail
BENCH_DIR=${BENCH_DIR:-"$(cd "$(dirname "$0")/.." && pwd)/bench-out"}
mkdir -p "$BENCH_DIR"
if ! command -v nginx >/dev/null || [ ! -e /usr/lib/nginx/modules/ngx_http_image_filter_module.so ] || ! command -v wrk >/dev/null; then
  policy=/usr/sbin/policy-rc.d
  made_policy=0
  if [ ! -e "$policy" ]; then printf '#!/bin/sh\nexit 101\n' >"$policy"; chmod +x "$policy"; made_policy=1; fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-core libnginx-mod-http-image-filter wrk >/dev/null
  if [ "$made_policy" = 1 ]; then rm -f "$policy"; fi
  # Nothing of the packaged server is left running.
  if [ -f /run/nginx.pid ]; then kill "$(cat /run/nginx.pid)" 2>/dev/null || true; fi
fi
if [ ! -x "$BENCH_DIR/venv/bin/thumbor" ]; then
  python3 -m venv "$BENCH_DIR/venv"
  "$BENCH_DIR/venv/bin/pip" install -q --upgrade pip
  "$BENCH_DIR/venv/bin/pip" install -q "thumbor>=7,<8"
fi
echo "nginx: $(nginx -v 2>&1 | sed 's/.*nginx\///'), wrk: $(wrk -v 2>&1 | head -1 | awk '{print $2}'), thumbor: $("$BENCH_DIR/venv/bin/thumbor" --version 2>/dev/null || "$BENCH_DIR/venv/bin/pip" show thumbor | awk '/^Version/{print $2}')"
