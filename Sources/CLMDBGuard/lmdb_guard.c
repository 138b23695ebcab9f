#include "lmdb_guard.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>

// The landing of the guarded call running on this thread, or NULL outside one.
static _Thread_local sigjmp_buf *landing;
// Set when a call that writes faulted on this thread, until lmdb_guard_take_write_fault.
static _Thread_local int write_faulted;

static struct sigaction previous_segv;
static struct sigaction previous_bus;
static pthread_once_t installed = PTHREAD_ONCE_INIT;

static void on_fault(int signal, siginfo_t *info, void *context) {
    sigjmp_buf *here = landing;
    if (here != NULL) {
        landing = NULL;
        siglongjmp(*here, 1);
    }
    struct sigaction *previous = signal == SIGSEGV ? &previous_segv : &previous_bus;
    if (previous->sa_flags & SA_SIGINFO) {
        previous->sa_sigaction(signal, info, context);
    } else if (previous->sa_handler != SIG_DFL && previous->sa_handler != SIG_IGN) {
        previous->sa_handler(signal);
    } else {
        // The default action: put it back and return, so the faulting access runs again and
        // ends the process as it would have without this handler (an ignored fault would only
        // fault forever).
        struct sigaction fallback;
        memset(&fallback, 0, sizeof fallback);
        fallback.sa_handler = SIG_DFL;
        sigemptyset(&fallback.sa_mask);
        sigaction(signal, &fallback, NULL);
    }
}

static void install(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_fault;
    // SA_NODEFER: the landing is reached by siglongjmp without restoring a signal mask (saving
    // one costs a system call per guarded call), so the signal must not be blocked in the handler.
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, &previous_segv);
    sigaction(SIGBUS, &action, &previous_bus);
}

void lmdb_guard_install(void) { pthread_once(&installed, install); }

// Runs `call` with this thread's landing set; a fault inside it makes the enclosing function
// return LMDB_GUARD_FAULTED. Only C frames lie between the landing and the fault.
#define GUARDED(call)                                                                              \
    do {                                                                                           \
        sigjmp_buf here;                                                                           \
        if (sigsetjmp(here, 0) != 0) return LMDB_GUARD_FAULTED;                                    \
        landing = &here;                                                                           \
        int code = (call);                                                                         \
        landing = NULL;                                                                            \
        return code;                                                                               \
    } while (0)

// The part of the address space a value from the map may occupy: the file's pages.
struct bounds {
    uintptr_t map, file_end, reach, map_size;
};

static int read_bounds(MDB_env *env, struct bounds *bounds) {
    MDB_envinfo info;
    MDB_stat stat;
    if (mdb_env_info(env, &info) != 0 || mdb_env_stat(env, &stat) != 0) return 0;
    bounds->map = (uintptr_t)info.me_mapaddr;
    bounds->file_end = bounds->map + (uintptr_t)(info.me_last_pgno + 1) * stat.ms_psize;
    // A node's offset within its page is at most 16 bits, and a page lies at most at the map's end.
    bounds->reach = bounds->map + info.me_mapsize + 65536 + stat.ms_psize;
    bounds->map_size = info.me_mapsize;
    return 1;
}

// Whether `value` lies within the file's pages of the map, or outside the map and its reach
// altogether (a write transaction's own pages, in the heap). A damaged node can point past the
// file's end (SIGBUS when read) or past the map's (SIGSEGV) with a length LMDB never checks.
static int lies_in_file(const struct bounds *bounds, const MDB_val *value) {
    if (value->mv_size == 0) return 1;
    uintptr_t start = (uintptr_t)value->mv_data;
    if (value->mv_size > bounds->map_size) return 0;
    if (start < bounds->map || start >= bounds->reach) return 1;
    return start + value->mv_size >= start && start + value->mv_size <= bounds->file_end;
}

static int checked(MDB_env *env, int code, const MDB_val *key, const MDB_val *data) {
    if (code != 0) return code;
    struct bounds bounds;
    if (!read_bounds(env, &bounds)) return MDB_CORRUPTED;
    if ((key != NULL && !lies_in_file(&bounds, key)) || !lies_in_file(&bounds, data)) return MDB_CORRUPTED;
    return 0;
}

static int get(MDB_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *data) {
    return checked(mdb_txn_env(txn), mdb_get(txn, dbi, key, data), NULL, data);
}

static int cursor_get(MDB_cursor *cursor, MDB_val *key, MDB_val *data, MDB_cursor_op op) {
    MDB_env *env = mdb_txn_env(mdb_cursor_txn(cursor));
    return checked(env, mdb_cursor_get(cursor, key, data, op), key, data);
}

int lmdb_guard_get(MDB_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *data) { GUARDED(get(txn, dbi, key, data)); }

int lmdb_guard_cursor_get(MDB_cursor *cursor, MDB_val *key, MDB_val *data, MDB_cursor_op op) {
    GUARDED(cursor_get(cursor, key, data, op));
}

static int guarded_put(MDB_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *data, unsigned int flags) {
    GUARDED(mdb_put(txn, dbi, key, data, flags));
}
static int guarded_del(MDB_txn *txn, MDB_dbi dbi, MDB_val *key) { GUARDED(mdb_del(txn, dbi, key, NULL)); }
static int guarded_cursor_del(MDB_cursor *cursor, unsigned int flags) { GUARDED(mdb_cursor_del(cursor, flags)); }
static int guarded_drop(MDB_txn *txn, MDB_dbi dbi, int del) { GUARDED(mdb_drop(txn, dbi, del)); }
static int guarded_commit(MDB_txn *txn) { GUARDED(mdb_txn_commit(txn)); }

// A call that writes and faulted left its transaction unfit to end: say so to the caller.
static int noting_write_fault(int code) {
    if (code == LMDB_GUARD_FAULTED) write_faulted = 1;
    return code;
}

int lmdb_guard_put(MDB_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *data, unsigned int flags) {
    return noting_write_fault(guarded_put(txn, dbi, key, data, flags));
}

int lmdb_guard_del(MDB_txn *txn, MDB_dbi dbi, MDB_val *key) { return noting_write_fault(guarded_del(txn, dbi, key)); }

int lmdb_guard_cursor_del(MDB_cursor *cursor, unsigned int flags) {
    return noting_write_fault(guarded_cursor_del(cursor, flags));
}

int lmdb_guard_drop(MDB_txn *txn, MDB_dbi dbi, int del) { return noting_write_fault(guarded_drop(txn, dbi, del)); }

int lmdb_guard_stat(MDB_txn *txn, MDB_dbi dbi, MDB_stat *stat) { GUARDED(mdb_stat(txn, dbi, stat)); }

int lmdb_guard_txn_commit(MDB_txn *txn) { return noting_write_fault(guarded_commit(txn)); }

int lmdb_guard_take_write_fault(void) {
    int faulted = write_faulted;
    write_faulted = 0;
    return faulted;
}
