#!/bin/sh
# The floor under the store's mass eviction on this machine: raw LMDB deleting the oldest half of
# a million small entries in the store's layout (record-layouts.c, records by number, numbers
# deleted afterwards in digest order) and raw SQLite deleting the same half of the index's rows
# (index-eviction.py, the store's schema and statements), no store code, started at the same
# moment. The store does both halves; its eviction can be no faster than the slower of the two
# while they share the machine's cores, as they do inside the store.
#
#   sh Benchmarks/LayoutProbe/eviction-floor.sh [ENTRIES]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
entries=${1:-1000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/record-layouts" "$here/record-layouts.c" -llmdb
PROBE_GO="$work/go" "$work/record-layouts" "$work/lmdb" time "$entries" lazy > "$work/lmdb.out" &
lmdb=$!
python3 "$here/index-eviction.py" --rows "$entries" --runs 1 --current-only --go "$work/go" > "$work/sqlite.out" &
sqlite=$!
until grep -q ready "$work/lmdb.out" && grep -q ready "$work/sqlite.out"; do
    if ! kill -0 "$lmdb" 2>/dev/null || ! kill -0 "$sqlite" 2>/dev/null; then
        echo "a probe ended before it was ready:" >&2
        cat "$work/lmdb.out" "$work/sqlite.out" >&2
        kill "$lmdb" "$sqlite" 2>/dev/null || true
        exit 1
    fi
    sleep 0.2
done
touch "$work/go"
status=0
wait "$lmdb" || status=1
wait "$sqlite" || status=1
grep -hv ready "$work/lmdb.out" "$work/sqlite.out"
exit "$status"
