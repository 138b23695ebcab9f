#!/usr/bin/env bash
# Side by side on this machine, in one run: imagecache-proxy, nginx (proxy_cache + image_filter)
# and thumbor (file storage + file result storage), each in front of the same loopback origin of
# generated 2400 x 1600 JPEGs (and ../shared/corpus/real's JPEGs when present), driven by wrk at
# 1, 16 and 64 connections for:
#   cached  256-pixel thumbnails every server has made and cached already;
#   cold    a thumbnail size never asked before on every request (originals already fetched), so
#           each request makes a thumbnail; every connection count asks sizes from 100 pixels up,
#           each its own;
#   reval   256-pixel thumbnails of sources with max-age=1: each thumbnail's source is stale about
#           once a second and is revalidated (If-None-Match, 304).
# With ROUNDS=N, each round runs the servers in order and then in reverse order (the first to run
# meets a machine the others have not yet warmed, and the page cache and CPU clocks move the
# figures); the table gives each row's median over every run, and the goals' ratios are taken per
# run, between servers of the same round and order, then their median. Prints Markdown tables;
# the raw results go to $BENCH_DIR/results.jsonl.
#
#   Proxy/bench/run.sh                        # SECONDS_PER_RUN=10, ROUNDS=1 by default
#   ROUNDS=3 CONNECTIONS=64 Proxy/bench/run.sh
#
# Everything listens on 127.0.0.1 only; each run is bounded by SECONDS_PER_RUN. nginx, its image
# filter module and wrk come from Debian, thumbor from PyPI into a virtual environment: installed
# by install.sh for the benchmark only.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
PROXY_PACKAGE="$(cd "$HERE/.." && pwd)"
export BENCH_DIR=${BENCH_DIR:-"$PROXY_PACKAGE/bench-out"}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-10}
CONNECTIONS=${CONNECTIONS:-"1 16 64"}
SYSTEMS=${SYSTEMS:-"imagecache-proxy nginx thumbor"}
ROUNDS=${ROUNDS:-1}
GENERATED_IMAGES=${GENERATED_IMAGES:-24}
ORIGIN_PORT=18080 PROXY_PORT=18081 NGINX_PORT=18082 RESIZER_PORT=18083 THUMBOR_PORT=18084
KEY="bench-signing-key"
PY="$BENCH_DIR/venv/bin/python"

"$HERE/install.sh"
if [[ " $SYSTEMS " == *" imagecache-proxy "* ]]; then
  (cd "$PROXY_PACKAGE" && swift build -c release --product imagecache-proxy >/dev/null)
  PROXY_BIN="$(cd "$PROXY_PACKAGE" && swift build -c release --show-bin-path)/imagecache-proxy"
fi

images="$BENCH_DIR/images"
"$PY" "$HERE/make_images.py" "$images" "$GENERATED_IMAGES" "$PROXY_PACKAGE/../../shared/corpus/real"
results="$BENCH_DIR/results.jsonl"
: >"$results"
pids=()
# Stops a server and the processes it forked (thumbor's --processes children, nginx's workers).
stop() {
  pkill -P "$1" 2>/dev/null || true
  kill "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}
cleanup() { for pid in "${pids[@]}"; do stop "$pid"; done; }
trap cleanup EXIT

# Fails when something already listens on $1: a measurement of someone else's server is worthless.
port_free() {
  if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then
    echo "127.0.0.1:$1 is already in use; stop what listens there first" >&2
    exit 1
  fi
}
for port in $ORIGIN_PORT $PROXY_PORT $NGINX_PORT $RESIZER_PORT $THUMBOR_PORT; do port_free "$port"; done

wait_for_port() {
  for _ in $(seq 1 200); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "nothing listens on 127.0.0.1:$1" >&2
  return 1
}

"$PY" "$HERE/origin.py" "$images" "$ORIGIN_PORT" &
pids+=($!)
wait_for_port "$ORIGIN_PORT"

# Fetches every path in $1 once, 8 at a time, against $2.
warm() {
  xargs -P 8 -I{} curl -s -o /dev/null "http://127.0.0.1:$2{}" <"$1"
}

# One wrk run: system, scenario, connections, paths file, port, server pid.
measure() {
  local line
  line=$("$PY" "$HERE/measure.py" "$6" "$4" "$3" "$SECONDS_PER_RUN" "http://127.0.0.1:$5")
  echo "$line" | "$PY" -c "import json,sys; r=json.loads(sys.stdin.read()); r.update(system='$1', scenario='$2', round=$ROUND, order='$ORDER'); print(json.dumps(r))" >>"$results"
  tail -n 1 "$results" >&2
}

run_system() {
  local system=$1 port=$2 pid=$3 name=$4
  local plans="$BENCH_DIR/plans-$system"
  mkdir -p "$plans"
  "$PY" "$HERE/plan.py" "$name" warm "$images" "$ORIGIN_PORT" "$KEY" >"$plans/warm"
  "$PY" "$HERE/plan.py" "$name" cached "$images" "$ORIGIN_PORT" "$KEY" >"$plans/cached"
  "$PY" "$HERE/plan.py" "$name" short "$images" "$ORIGIN_PORT" "$KEY" >"$plans/short"
  warm "$plans/warm" "$port"
  warm "$plans/cached" "$port"
  for connections in $CONNECTIONS; do measure "$system" cached "$connections" "$plans/cached" "$port" "$pid"; done
  local offset=0 stride
  stride=$(wc -w <<<"$CONNECTIONS")
  for connections in $CONNECTIONS; do
    "$PY" "$HERE/plan.py" "$name" cold "$images" "$ORIGIN_PORT" "$KEY" "$offset" "$stride" 20000 >"$plans/cold-$connections"
    measure "$system" cold "$connections" "$plans/cold-$connections" "$port" "$pid"
    offset=$((offset + 1))
  done
  warm "$plans/short" "$port"
  sleep 2
  for connections in $CONNECTIONS; do measure "$system" reval "$connections" "$plans/short" "$port" "$pid"; done
}

run_systems() {
  for system in "$@"; do
    case "$system" in
    imagecache-proxy)
      rm -rf "$BENCH_DIR/proxy-cache"
      "$PROXY_BIN" serve --port "$PROXY_PORT" --cache-path "$BENCH_DIR/proxy-cache" --key "$KEY" \
        --allow-private-sources --log-level warning &
      pid=$!
      pids+=($pid)
      wait_for_port "$PROXY_PORT"
      run_system imagecache-proxy "$PROXY_PORT" "$pid" proxy
      ;;
    nginx)
      rm -rf "$BENCH_DIR"/nginx-thumbs "$BENCH_DIR"/nginx-originals
      sed -e "s|@DIR@|$BENCH_DIR|g" -e "s|@PORT@|$NGINX_PORT|g" -e "s|@RESIZER_PORT@|$RESIZER_PORT|g" \
        -e "s|@ORIGIN_PORT@|$ORIGIN_PORT|g" "$HERE/nginx.conf.template" >"$BENCH_DIR/nginx.conf"
      nginx -c "$BENCH_DIR/nginx.conf" -p "$BENCH_DIR" &
      pid=$!
      pids+=($pid)
      wait_for_port "$NGINX_PORT"
      run_system nginx "$NGINX_PORT" "$pid" nginx
      ;;
    thumbor)
      rm -rf "$BENCH_DIR"/thumbor-storage "$BENCH_DIR"/thumbor-results
      sed -e "s|@DIR@|$BENCH_DIR|g" "$HERE/thumbor.conf.template" >"$BENCH_DIR/thumbor.conf"
      "$BENCH_DIR/venv/bin/thumbor" --ip 127.0.0.1 --port "$THUMBOR_PORT" --conf "$BENCH_DIR/thumbor.conf" \
        --processes "$(nproc)" -l warning &
      pid=$!
      pids+=($pid)
      wait_for_port "$THUMBOR_PORT"
      run_system thumbor "$THUMBOR_PORT" "$pid" thumbor
      ;;
    esac
    stop "$pid"
  done
}

reversed=()
for system in $SYSTEMS; do reversed=("$system" "${reversed[@]}"); done
for ROUND in $(seq 1 "$ROUNDS"); do
  ORDER=forward
  run_systems $SYSTEMS
  if [ "$ROUNDS" -gt 1 ]; then
    ORDER=reverse
    run_systems "${reversed[@]}"
  fi
done
"$PY" "$HERE/render.py" "$results"
