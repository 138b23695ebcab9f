#!/usr/bin/env python3
"""Raw SQLite doing an eviction's index work, for a baseline beside `cachectl bench`.

Builds a table of the index's shape (`IndexSchema`, schema 5) in WAL mode with the store's
pragmas, fills it with rows like the bench's (1-4 KiB entries, a 24-hour expiry, about one in
ten read again later), then evicts the least recently used half as the store's slices do: in
transactions of 1,024 rows, choosing the victims from the access-order index, deleting them as
one range of it, and updating the totals. Prints the time spent choosing and deleting, per
variant of the access-order and expiry indexes, the median of `--runs` runs.

    python3 Benchmarks/LayoutProbe/index-eviction.py --rows 1000000 --runs 3

With `--current-only` it runs the store's own indexes alone; with `--go FILE` it prints "ready"
once the table is built and waits for FILE before evicting (see `eviction-floor.sh`).

It uses Python's `sqlite3` module, which on Debian is the system SQLite the store links.
"""
import argparse
import os
import random
import sqlite3
import statistics
import tempfile
import time

TABLE = """
CREATE TABLE entries (
    stored_at INTEGER NOT NULL, digest BLOB NOT NULL, key TEXT NOT NULL, byte_size INTEGER NOT NULL,
    checksum INTEGER NOT NULL, last_access INTEGER NOT NULL, expires_at INTEGER, etag TEXT,
    last_modified TEXT, response_date INTEGER, content_type TEXT, format TEXT, pixel_width INTEGER,
    pixel_height INTEGER, cost INTEGER, ttl_ms INTEGER, response_headers BLOB, source_key TEXT,
    source_checksum INTEGER, blob_number INTEGER,
    PRIMARY KEY (stored_at, digest)
) WITHOUT ROWID;
CREATE TABLE totals (id INTEGER PRIMARY KEY CHECK (id = 1), entries INTEGER NOT NULL, bytes INTEGER NOT NULL);
CREATE INDEX entries_by_source ON entries(source_key) WHERE source_key IS NOT NULL;
"""

ACCESS_INDEXES = {
    "schema 5 (covering)": "CREATE INDEX entries_by_access ON entries(last_access, stored_at, digest, byte_size, blob_number);",
    "schema 4 (last access)": "CREATE INDEX entries_by_access ON entries(last_access);",
}
EXPIRY_INDEX = "CREATE INDEX entries_by_expiry ON entries(expires_at) WHERE expires_at IS NOT NULL;"

CHOOSE = """SELECT stored_at, digest, byte_size, blob_number, last_access FROM entries
ORDER BY last_access, stored_at, digest LIMIT ?"""
DELETE = "DELETE FROM entries WHERE (last_access, stored_at, digest) <= (?, ?, ?)"


def build(path, rows, access_index, expiry, seed):
    random.seed(seed)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.executescript(TABLE + access_index + (EXPIRY_INDEX if expiry else ""))
    start = 1_795_714_462_253
    db.execute("BEGIN")
    total = 0
    for n in range(rows):
        stored = start + n // 60  # about sixty puts a millisecond, as the bench's inserts
        size = random.randint(1024, 4096)
        total += size
        access = stored + random.randint(1, 600_000) if random.random() < 0.1 else stored
        db.execute(
            "INSERT INTO entries (stored_at, digest, key, byte_size, checksum, last_access, expires_at, etag,"
            " format, blob_number) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'jpeg', ?)",
            (stored, random.randbytes(16), f"https://cdn.example.com/img/{n}.jpg", size,
             random.getrandbits(63), access, stored + 86_400_000, f'"{n}-v1"', n + 1))
    db.execute("INSERT INTO totals VALUES (1, ?, ?)", (rows, total))
    db.execute("COMMIT")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()


def evict(path, victims, slice_rows):
    db = sqlite3.connect(path, isolation_level=None)
    for pragma in ("journal_mode = WAL", "cache_size = -8192", "wal_autocheckpoint = 0", "synchronous = NORMAL"):
        db.execute("PRAGMA " + pragma)
    choosing = deleting = 0.0
    left = victims
    while left > 0:
        take = min(slice_rows, left)
        db.execute("BEGIN IMMEDIATE")
        t0 = time.perf_counter()
        chosen = db.execute(CHOOSE, (take,)).fetchall()
        freed = sum(row[2] for row in chosen)
        t1 = time.perf_counter()
        last = chosen[-1]
        db.execute(DELETE, (last[4], last[0], last[1]))
        db.execute("UPDATE totals SET entries = entries - ?, bytes = bytes - ? WHERE id = 1", (len(chosen), freed))
        db.execute("COMMIT")
        t2 = time.perf_counter()
        choosing += t1 - t0
        deleting += t2 - t1
        left -= take
    db.close()
    return choosing, deleting


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--slice", type=int, default=1024)
    parser.add_argument("--current-only", action="store_true", help="only the store's indexes (schema 5)")
    parser.add_argument("--go", help="print 'ready' after building, wait for this file before evicting")
    args = parser.parse_args()
    variants = [(name, ddl, True) for name, ddl in ACCESS_INDEXES.items()]
    variants.append(("schema 5, no expiry index", ACCESS_INDEXES["schema 5 (covering)"], False))
    if args.current_only:
        variants = variants[:1]
    results = {name: [] for name, _, _ in variants}
    with tempfile.TemporaryDirectory() as folder:
        for run in range(args.runs):
            for name, ddl, expiry in variants:  # interleaved, run by run
                path = os.path.join(folder, f"index-{run}-{len(results[name])}.sqlite")
                build(path, args.rows, ddl, expiry, seed=run)
                if args.go:
                    print("ready", flush=True)
                    while not os.path.exists(args.go):
                        time.sleep(0.001)
                results[name].append(evict(path, args.rows // 2, args.slice))
                for suffix in ("", "-wal", "-shm"):
                    if os.path.exists(path + suffix):
                        os.unlink(path + suffix)
    print(f"{args.rows:,} rows, {args.rows // 2:,} evicted in transactions of {args.slice:,}, "
          f"median of {args.runs} (range):")
    for name, runs in results.items():
        choose = [c for c, _ in runs]
        delete = [d for _, d in runs]
        print(f"  {name:28s} choose {statistics.median(choose):.2f} s ({min(choose):.2f}-{max(choose):.2f}), "
              f"delete and commit {statistics.median(delete):.2f} s ({min(delete):.2f}-{max(delete):.2f}), "
              f"{statistics.median(delete) / (args.rows // 2) * 1e6:.2f} µs a row")


if __name__ == "__main__":
    main()
