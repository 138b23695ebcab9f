// Raw LMDB, no store code: what opening a writable environment costs, open after open in one
// process, as `cachectl bench` opens its store (insert, cold reopen, warm reopen, ...).
//
// A writable environment allocates its writer's scratch at every open: the dirty-page list
// (2 MiB, calloc) and the free-page list (1 MiB). glibc serves the first from mmap; freeing it
// raises glibc's mmap threshold above it, so later opens take the memory from the heap, and a
// calloc of heap memory that was never touched clears it page by page: the opens that land on such
// memory pay a fault for each page. Run it a second time with MALLOC_MMAP_THRESHOLD_=131072 (a
// fixed threshold, the dynamic one off) to see the opens without that.
//
//   cc -O2 -o /tmp/env-open Benchmarks/LayoutProbe/env-open.c -llmdb
//   mkdir -p /tmp/env-open.d && /tmp/env-open /tmp/env-open.d 9
//   MALLOC_MMAP_THRESHOLD_=131072 /tmp/env-open /tmp/env-open.d 9
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double now_us(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec / 1e3; }
static long minor_faults(void) { struct rusage usage; getrusage(RUSAGE_SELF, &usage); return usage.ru_minflt; }
static void check(int code, const char *what) { if (code) { fprintf(stderr, "%s: %s\n", what, mdb_strerror(code)); exit(1); } }

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s DIR OPENS\n", argv[0]);
        return 2;
    }
    int opens = atoi(argv[2]);
    for (int i = 1; i <= opens; i++) {
        MDB_env *env;
        long faults = minor_faults();
        double start = now_us();
        check(mdb_env_create(&env), "create");
        mdb_env_set_maxdbs(env, 8);
        mdb_env_set_maxreaders(env, 510);
        mdb_env_set_mapsize(env, 1L << 30);
        // The store's flags for periodic durability.
        check(mdb_env_open(env, argv[1], MDB_NOTLS | MDB_NORDAHEAD | MDB_NOSYNC, 0600), "open");
        double opened = now_us();
        long faulted = minor_faults() - faults;
        mdb_env_close(env);
        printf("open %d: %.0f us, %ld minor faults\n", i, opened - start, faulted);
    }
    return 0;
}
