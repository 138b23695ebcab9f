import CLMDB
import CLMDBGuard
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Read and write transactions.
extension BlobStore {
    /// Runs `body` in a read-only snapshot. Safe from any thread, in parallel.
    func read<Result>(_ body: (LMDBTransaction) throws -> Result) throws -> Result {
        while true {
            var resized = false
            let result: Result? = try environment.withSharedLock { env in
                try ensureOpen()
                let txn = try takeReadTransaction(env.handle)
                guard let txn else {
                    resized = true
                    return nil
                }
                defer {
                    mdb_txn_reset(txn)
                    readPool.withLock { $0.append(txn) }
                }
                return try body(LMDBTransaction(handle: txn))
            }
            if let result { return result }
            if resized { try adoptResizedMap() }
        }
    }

    /// A renewed pooled transaction, a new one, or nil when another process grew the map.
    func takeReadTransaction(_ environment: OpaquePointer) throws -> OpaquePointer? {
        if let pooled = readPool.withLock({ $0.popLast() }) {
            let code = mdb_txn_renew(pooled)
            if code == 0 { return pooled }
            mdb_txn_abort(pooled)
            if code == MDB_MAP_RESIZED { return nil }
            throw LMDBError.error(code, "renew a read transaction")
        }
        var txn: OpaquePointer?
        let code = mdb_txn_begin(environment, nil, UInt32(MDB_RDONLY), &txn)
        if code == MDB_MAP_RESIZED { return nil }
        try LMDBError.check(code, "begin a read transaction")
        return txn
    }

    /// Runs `body` in a write transaction and commits it. When the map fills, the transaction is
    /// aborted, the map doubled, and `body` run again; `body` must therefore be repeatable. A
    /// write that `addsData` stops at the growth ceiling (``GrowthCeilingReached``); any other
    /// (one that removes) may pass it.
    ///
    /// `mdb_txn_commit` ends its transaction whether it succeeds or fails, so a failed commit is
    /// never aborted again: a second end frees LMDB's reused top-level transaction twice. When a
    /// failure leaves the environment unusable (`MDB_PANIC`, after a meta page could not be
    /// written), it is closed and reopened before the error is passed on.
    ///
    /// When LMDB faults inside a write (a damaged page on its path; see `CLMDBGuard`), the
    /// transaction is left as it is, never ended, and every later write fails at once
    /// (``ensureWritable()``).
    func write<Result>(addsData: Bool = false, _ body: (LMDBTransaction) throws -> Result) throws -> Result {
        if isReadOnly { throw StorageError.readOnly(path: directory.path, reason: "the store was opened read-only") }
        try ensureWritable()
        _ = lmdb_guard_take_write_fault()
        while true {
            var outcome: (result: Result?, code: Int32) = (nil, 0)
            do {
                try environment.withSharedLock { env in
                    try ensureOpen()
                    var txn: OpaquePointer?
                    var code = mdb_txn_begin(env.handle, nil, 0, &txn)
                    if code == MDB_MAP_RESIZED || code == MDB_PANIC {
                        outcome.code = code
                        return
                    }
                    try LMDBError.check(code, "begin a write transaction", path: directory.path)
                    guard let txn else { return }
                    let result: Result
                    do {
                        let transaction = LMDBTransaction(handle: txn, isWrite: true)
                        // Before anything is written: the committed state, one transaction back.
                        try databases.tailIndex.catchUp(
                            transaction, tail: databases.pointerTail, snapshot: mdb_txn_id(txn) - 1)
                        result = try body(transaction)
                    } catch let StorageError.lmdb(_, code, _) where code == MDB_MAP_FULL {
                        mdb_txn_abort(txn)
                        outcome.code = code
                        return
                    } catch {
                        try stopWritesIfFaulted()
                        mdb_txn_abort(txn)
                        throw error
                    }
                    // From here on the transaction is LMDB's to end: the commit ends it either way.
                    if let flushMarker {
                        do {
                            code = try flushMarker.commit { lmdb_guard_txn_commit(txn) }
                        } catch {
                            // The marker could not be written, so the commit never ran.
                            mdb_txn_abort(txn)
                            throw error
                        }
                    } else {
                        code = lmdb_guard_txn_commit(txn)
                    }
                    try stopWritesIfFaulted()
                    if code == 0 {
                        outcome.result = result
                    } else if code == MDB_MAP_FULL {
                        outcome.code = code
                    } else {
                        throw LMDBError.commitError(code, directory: directory)
                    }
                }
            } catch {
                if environmentPanicked() { try reopenAfterPanic() }
                throw error
            }
            if let result = outcome.result { return result }
            switch outcome.code {
            case MDB_MAP_RESIZED: try adoptResizedMap()
            case MDB_MAP_FULL: try growMap(respectingCeiling: addsData)
            case MDB_PANIC:
                try reopenAfterPanic()
                throw LMDBError.error(MDB_PANIC, "begin a write transaction", path: directory.path)
            default: break
            }
        }
    }

    /// Fails once LMDB faulted inside a write of this environment (see ``writesStopped``).
    func ensureWritable() throws {
        if writesStopped.withLock({ $0 }) { throw Self.writesStoppedError(directory) }
    }

    /// After a guarded call that writes faulted on this thread: stops this environment's writes
    /// and fails, leaving the transaction unended (ending it would free memory LMDB's abandoned
    /// stack still names). The writer lock it holds passes on when this thread exits.
    private func stopWritesIfFaulted() throws {
        guard lmdb_guard_take_write_fault() != 0 else { return }
        writesStopped.withLock { $0 = true }
        throw Self.writesStoppedError(directory)
    }

    private static func writesStoppedError(_ directory: URL) -> StorageError {
        .corruptStore(
            path: directory.appendingPathComponent("data.mdb").path,
            reason: "LMDB faulted writing into a damaged page, so this store takes no more writes until it is "
                + "opened again; reads go on. Run `cachectl verify --repair` to copy what reads clean into a new store")
    }

    /// Whether LMDB has marked the environment as fatally failed (every transaction then fails
    /// with `MDB_PANIC` until it is reopened).
    func environmentPanicked() -> Bool {
        environment.withSharedLock { env in
            guard !isClosed.withLock({ $0 }) else { return false }
            var txn: OpaquePointer?
            let code = mdb_txn_begin(env.handle, nil, UInt32(MDB_RDONLY), &txn)
            if code == 0 { mdb_txn_abort(txn) }
            return code == MDB_PANIC
        }
    }
}
