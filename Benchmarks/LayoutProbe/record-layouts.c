// Raw LMDB, no store code: what a mass eviction and inserts cost for two ways of laying out records.
//
//   digest  records keyed by the entry's 16-byte digest (the store's layout before format 3);
//   time    records keyed by number in the order they were written, and a digest -> number map.
// Both keep blobs in a log keyed by number. Entries of 1-4 KiB with 150-byte records are inserted
// in transactions of 128; then the oldest half is deleted in transactions of 1,024. MDB_NOSYNC,
// with an env sync once a second, as the store's periodic durability does.
// "eager" deletes each map entry with its record; "lazy" deletes the records and blobs first and
// the map entries afterwards, sorted by digest, 4,096 per transaction (what the store does).
//
//   cc -O2 -o /tmp/record-layouts Benchmarks/LayoutProbe/record-layouts.c -llmdb
//   /tmp/record-layouts /tmp/probe digest 1000000
//   /tmp/record-layouts /tmp/probe time 1000000 eager
//   /tmp/record-layouts /tmp/probe time 1000000 lazy
//
// With PROBE_GO set to a path, it prints "ready" once inserted and waits for that file before
// evicting (`eviction-floor.sh` starts the raw SQLite probe's eviction at the same moment).
#include <lmdb.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static uint64_t state = 88172645463325252ULL;
static uint64_t next_random(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

static void check(int code, const char *what) {
    if (code) {
        fprintf(stderr, "%s: %s\n", what, mdb_strerror(code));
        exit(1);
    }
}

static int compare_digests(const void *a, const void *b) { return memcmp(a, b, 16); }

static double last_sync;
static void sync_if_due(MDB_env *env) {
    if (now() - last_sync > 1) {
        mdb_env_sync(env, 1);
        last_sync = now();
    }
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s DIR digest|time ENTRIES [eager|lazy]\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    int by_time = strcmp(argv[2], "time") == 0;
    long count = atol(argv[3]);
    int lazy = argc > 4 && strcmp(argv[4], "lazy") == 0;
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    if (system(command) != 0) return 1;

    MDB_env *env;
    check(mdb_env_create(&env), "create");
    mdb_env_set_maxdbs(env, 4);
    mdb_env_set_mapsize(env, 16L << 30);
    check(mdb_env_open(env, dir, MDB_NOTLS | MDB_NOSYNC | MDB_NORDAHEAD, 0600), "open");
    MDB_txn *txn;
    MDB_dbi records, blobs, map;
    check(mdb_txn_begin(env, NULL, 0, &txn), "begin");
    check(mdb_dbi_open(txn, "records", MDB_CREATE, &records), "records");
    check(mdb_dbi_open(txn, "blob_log", MDB_CREATE, &blobs), "blob_log");
    check(mdb_dbi_open(txn, "digests", MDB_CREATE, &map), "digests");
    check(mdb_txn_commit(txn), "commit");

    uint8_t(*digests)[16] = malloc(count * 16);
    for (long i = 0; i < count; i++) {
        uint64_t a = next_random(), b = next_random();
        memcpy(digests[i], &a, 8);
        memcpy(digests[i] + 8, &b, 8);
    }
    static uint8_t blob[4096], record[150];
    memset(blob, 0xab, sizeof blob);
    memset(record, 0x5c, sizeof record);

    last_sync = now();
    double start = now();
    for (long i = 0; i < count; i += 128) {
        check(mdb_txn_begin(env, NULL, 0, &txn), "begin");
        for (long j = i; j < i + 128 && j < count; j++) {
            uint64_t number = __builtin_bswap64((uint64_t)j + 1);
            MDB_val key = {8, &number}, digest = {16, digests[j]}, value = {150, record};
            MDB_val bytes = {1024 + next_random() % 3073, blob};
            check(mdb_put(txn, blobs, &key, &bytes, MDB_APPEND), "put blob");
            if (by_time) {
                check(mdb_put(txn, records, &key, &value, MDB_APPEND), "put record");
                MDB_val pointer = {8, &number};
                check(mdb_put(txn, map, &digest, &pointer, 0), "put number");
            } else {
                check(mdb_put(txn, records, &digest, &value, 0), "put record");
            }
        }
        check(mdb_txn_commit(txn), "commit");
        sync_if_due(env);
    }
    mdb_env_sync(env, 1);
    double inserted = now();
    printf("%-6s %s insert %ld: %.0f /s\n", argv[2], lazy ? "lazy " : "eager", count, count / (inserted - start));

    const char *go = getenv("PROBE_GO");
    if (go) {
        printf("ready\n");
        fflush(stdout);
        while (access(go, F_OK) != 0) usleep(1000);
    }

    long evicted = count / 2;
    double worst = 0;
    start = now();
    for (long i = 0; i < evicted; i += 1024) {
        double slice = now();
        check(mdb_txn_begin(env, NULL, 0, &txn), "begin");
        for (long j = i; j < i + 1024 && j < evicted; j++) {
            uint64_t number = __builtin_bswap64((uint64_t)j + 1);
            MDB_val key = {8, &number}, digest = {16, digests[j]};
            check(mdb_del(txn, blobs, &key, NULL), "delete blob");
            if (by_time) {
                check(mdb_del(txn, records, &key, NULL), "delete record");
                if (!lazy) check(mdb_del(txn, map, &digest, NULL), "delete number");
            } else {
                check(mdb_del(txn, records, &digest, NULL), "delete record");
            }
        }
        check(mdb_txn_commit(txn), "commit");
        sync_if_due(env);
        if (now() - slice > worst) worst = now() - slice;
    }
    double sliced = now(), sweep = 0;
    if (by_time && lazy) {
        qsort(digests, evicted, 16, compare_digests);
        for (long i = 0; i < evicted; i += 4096) {
            check(mdb_txn_begin(env, NULL, 0, &txn), "begin");
            for (long j = i; j < i + 4096 && j < evicted; j++) {
                MDB_val digest = {16, digests[j]};
                check(mdb_del(txn, map, &digest, NULL), "delete number");
            }
            check(mdb_txn_commit(txn), "commit");
            sync_if_due(env);
        }
        sweep = now() - sliced;
    }
    mdb_env_sync(env, 1);
    printf("%-6s %s evict %ld: %.2f s (slices %.2f s, worst slice %.1f ms, numbers deleted after %.2f s)\n", argv[2],
        lazy ? "lazy " : "eager", evicted, now() - start, sliced - start, worst * 1000, sweep);
    mdb_env_close(env);
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    return system(command) == 0 ? 0 : 1;
}
