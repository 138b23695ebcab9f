#ifndef LMDB_GUARD_H
#define LMDB_GUARD_H

#include <lmdb.h>
#include <stddef.h>

/// LMDB trusts its pages: a damaged page can send it to an address outside the file, and the
/// process faults (SIGSEGV, or SIGBUS past the file's end). These calls run LMDB's call with a
/// landing on the calling thread: a fault inside it returns `LMDB_GUARD_FAULTED` instead of
/// ending the process. Faults anywhere else go to the handler that was installed before.
///
/// What a fault leaves behind: a read-only transaction holds nothing (reset or abort it as
/// usual). A write transaction may have been cut off with LMDB's internal cursor list pointing
/// into the abandoned stack, so it must never be ended (an abort would free that address):
/// `lmdb_guard_take_write_fault` says so, and the environment's writer lock stays held by this
/// thread until it exits (LMDB's robust mutex then lets the next writer in).
#define LMDB_GUARD_FAULTED (-30600)

/// Installs the fault handler once per process (later calls do nothing). Chains to the handlers
/// installed before it for faults outside a guarded call.
void lmdb_guard_install(void);

/// `mdb_get`, its value checked to lie within the part of the map the file holds.
int lmdb_guard_get(MDB_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *data);
/// `mdb_cursor_get`, its key and value checked like `lmdb_guard_get`'s value.
int lmdb_guard_cursor_get(MDB_cursor *cursor, MDB_val *key, MDB_val *data, MDB_cursor_op op);
int lmdb_guard_put(MDB_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *data, unsigned int flags);
int lmdb_guard_del(MDB_txn *txn, MDB_dbi dbi, MDB_val *key);
int lmdb_guard_cursor_del(MDB_cursor *cursor, unsigned int flags);
int lmdb_guard_drop(MDB_txn *txn, MDB_dbi dbi, int del);
int lmdb_guard_stat(MDB_txn *txn, MDB_dbi dbi, MDB_stat *stat);
int lmdb_guard_txn_commit(MDB_txn *txn);

/// Whether a call that writes (put, del, cursor del, drop, commit) faulted on this thread since
/// the last call of this function, which clears it. Its transaction must then never be ended.
int lmdb_guard_take_write_fault(void);

#endif
