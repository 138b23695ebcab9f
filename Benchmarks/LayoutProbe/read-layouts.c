// Raw LMDB, no store code: what a read costs in three layouts of the same entries.
//
//   raw    the bytes under a 16-byte digest of the key, one tree (the bench's raw floor);
//   three  digest -> number, record under the number, bytes under the number in a second log
//          (format 3: every entry's bytes in the blob log);
//   two    digest -> number, record and bytes in one value under the number (format 4, for
//          entries of up to 16 KiB).
// 1,000,000 entries of 1-4 KiB with 124-byte records are inserted in transactions of 128; the
// environment is closed, its file read back into the page cache, reopened, and READS keys drawn by
// Zipf(1) rank over a random permutation (as `cachectl bench` reads) are read, each in a renewed
// read transaction, the bytes copied out.
//
//   cc -O2 -o /tmp/read-layouts Benchmarks/LayoutProbe/read-layouts.c -llmdb -lm
//   for layout in raw three two; do /tmp/read-layouts /tmp/probe $layout 1000000 400000; done
#include <lmdb.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static uint64_t state = 88172645463325252ULL;
static uint64_t next_random(void) { state ^= state << 13; state ^= state >> 7; state ^= state << 17; return state; }
static void check(int code, const char *what) { if (code) { fprintf(stderr, "%s: %s\n", what, mdb_strerror(code)); exit(1); } }

enum { RAW, THREE, TWO };
static MDB_env *open_env(const char *dir) {
    MDB_env *env;
    check(mdb_env_create(&env), "create");
    mdb_env_set_maxdbs(env, 4);
    mdb_env_set_mapsize(env, 16L << 30);
    check(mdb_env_open(env, dir, MDB_NOTLS | MDB_NOSYNC | MDB_NORDAHEAD, 0600), "open");
    return env;
}
int main(int argc, char **argv) {
    const char *dir = argv[1];
    if (argc < 5) {
        fprintf(stderr, "usage: %s DIR raw|three|two ENTRIES READS\n", argv[0]);
        return 2;
    }
    int layout = strcmp(argv[2], "raw") == 0 ? RAW : strcmp(argv[2], "three") == 0 ? THREE : TWO;
    long count = atol(argv[3]);
    long reads = atol(argv[4]);
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    if (system(command) != 0) return 1;
    MDB_env *env = open_env(dir);
    MDB_txn *txn;
    MDB_dbi records, blobs, map;
    check(mdb_txn_begin(env, NULL, 0, &txn), "begin");
    check(mdb_dbi_open(txn, "records", MDB_CREATE, &records), "records");
    check(mdb_dbi_open(txn, "blob_log", MDB_CREATE, &blobs), "blob_log");
    check(mdb_dbi_open(txn, "digests", MDB_CREATE, &map), "digests");
    check(mdb_txn_commit(txn), "commit");
    uint8_t(*digests)[16] = malloc(count * 16);
    for (long i = 0; i < count; i++) for (int k = 0; k < 2; k++) { uint64_t a = next_random(); memcpy(digests[i] + 8 * k, &a, 8); }
    static uint8_t blob[8192], record[100];
    memset(blob, 0xab, sizeof blob); memset(record, 0x5c, sizeof record);
    double start = now();
    for (long i = 0; i < count; i += 128) {
        check(mdb_txn_begin(env, NULL, 0, &txn), "begin");
        for (long j = i; j < i + 128 && j < count; j++) {
            uint64_t number = __builtin_bswap64((uint64_t)j + 1);
            size_t size = 1024 + next_random() % 3073;
            MDB_val key = {8, &number}, digest = {16, digests[j]}, rec = {124, record}, bytes = {size, blob};
            MDB_val pointer = {8, &number};
            switch (layout) {
            case RAW: check(mdb_put(txn, blobs, &digest, &bytes, 0), "put"); break;
            case THREE:
                check(mdb_put(txn, blobs, &key, &bytes, MDB_APPEND), "put blob");
                check(mdb_put(txn, records, &key, &rec, MDB_APPEND), "put record");
                check(mdb_put(txn, map, &digest, &pointer, 0), "put number"); break;
            case TWO: {
                MDB_val both = {124 + size, blob};
                check(mdb_put(txn, blobs, &key, &both, MDB_APPEND), "put both");
                check(mdb_put(txn, map, &digest, &pointer, 0), "put number"); break; }
            }
        }
        check(mdb_txn_commit(txn), "commit");
    }
    mdb_env_sync(env, 1);
    double inserted = now();
    mdb_env_close(env);
    snprintf(command, sizeof command, "cat '%s'/data.mdb > /dev/null", dir);
    if (system(command) != 0) return 1;
    env = open_env(dir);
    check(mdb_txn_begin(env, NULL, 0, &txn), "begin");
    check(mdb_dbi_open(txn, "records", 0, &records), "records");
    check(mdb_dbi_open(txn, "blob_log", 0, &blobs), "blob_log");
    check(mdb_dbi_open(txn, "digests", 0, &map), "digests");
    check(mdb_txn_commit(txn), "commit");
    // Zipf(1) over a random permutation, as the bench reads.
    long *perm = malloc(count * sizeof(long)); double *cum = malloc(count * sizeof(double));
    for (long i = 0; i < count; i++) perm[i] = i;
    for (long i = count - 1; i > 0; i--) { long j = next_random() % (i + 1); long t = perm[i]; perm[i] = perm[j]; perm[j] = t; }
    double sum = 0; for (long r = 0; r < count; r++) { sum += 1.0 / (r + 1); cum[r] = sum; }
    long *seq = malloc(reads * sizeof(long));
    for (long i = 0; i < reads; i++) {
        double target = (double)(next_random() >> 11) / (double)(1ULL << 53) * sum;
        long lo = 0, hi = count - 1;
        while (lo < hi) { long mid = (lo + hi) / 2; if (cum[mid] < target) lo = mid + 1; else hi = mid; }
        seq[i] = perm[lo];
    }
    static uint8_t out[8192];
    long got = 0;
    check(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn), "begin read");
    mdb_txn_reset(txn);
    double readStart = now();
    for (long i = 0; i < reads; i++) {
        check(mdb_txn_renew(txn), "renew");
        MDB_val digest = {16, digests[seq[i]]}, value, number, record;
        switch (layout) {
        case RAW: if (mdb_get(txn, blobs, &digest, &value) == 0) { memcpy(out, value.mv_data, value.mv_size); got++; } break;
        case THREE:
            if (mdb_get(txn, map, &digest, &number) == 0 && mdb_get(txn, records, &number, &record) == 0 && mdb_get(txn, blobs, &number, &value) == 0) {
                memcpy(out, value.mv_data, value.mv_size); got++; }
            break;
        case TWO:
            if (mdb_get(txn, map, &digest, &number) == 0 && mdb_get(txn, blobs, &number, &value) == 0) { memcpy(out, value.mv_data, value.mv_size); got++; }
            break;
        }
        mdb_txn_reset(txn);
    }
    double readEnd = now();
    printf("%-8s insert %.0f /s  read %.0f /s (%.2f us)  found %ld\n", argv[2], count / (inserted - start), reads / (readEnd - readStart), (readEnd - readStart) * 1e6 / reads, got);
    return 0;
}
