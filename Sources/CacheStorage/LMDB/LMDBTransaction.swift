import CLMDB
import CLMDBGuard

/// One LMDB transaction (read-only or read-write), valid only inside the closure that received it.
///
/// Every buffer it hands out points into LMDB's map and dies with the transaction: copy out first.
/// Every call goes through `CLMDBGuard`, so a damaged page that would make LMDB fault fails the
/// call (``LMDBError/faultCode``) instead, and a buffer handed out lies within the file.
struct LMDBTransaction {
    let handle: OpaquePointer
    /// A write transaction (see ``PointerTailIndex``, which brings its index up to date differently).
    var isWrite = false

    func get(_ database: MDB_dbi, key: UnsafeRawBufferPointer) throws -> UnsafeRawBufferPointer? {
        var keyValue = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var value = MDB_val()
        let code = lmdb_guard_get(handle, database, &keyValue, &value)
        if code == MDB_NOTFOUND { return nil }
        try LMDBError.check(code, "read an entry")
        return UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size)
    }

    /// Stores `value` under `key`; `flags` as `mdb_put` takes them (`MDB_APPEND` for a key known
    /// to sort after every other).
    func put(_ database: MDB_dbi, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, flags: UInt32 = 0) throws {
        var keyValue = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var dataValue = MDB_val(mv_size: value.count, mv_data: UnsafeMutableRawPointer(mutating: value.baseAddress))
        try LMDBError.check(lmdb_guard_put(handle, database, &keyValue, &dataValue, flags), "write an entry")
    }

    /// Stores `count` bytes under `key`, written by `fill` straight into the page LMDB reserves
    /// for them (`MDB_RESERVE`); `flags` as for `put`.
    func put(
        _ database: MDB_dbi, key: UnsafeRawBufferPointer, reserving count: Int, flags: UInt32 = 0,
        _ fill: (UnsafeMutableRawBufferPointer) -> Void
    ) throws {
        var keyValue = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var dataValue = MDB_val(mv_size: count, mv_data: nil)
        try LMDBError.check(lmdb_guard_put(handle, database, &keyValue, &dataValue, flags | UInt32(MDB_RESERVE)), "write an entry")
        fill(UnsafeMutableRawBufferPointer(start: dataValue.mv_data, count: count))
    }

    /// Deletes `key`; returns whether it existed.
    @discardableResult
    func delete(_ database: MDB_dbi, key: UnsafeRawBufferPointer) throws -> Bool {
        var keyValue = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        let code = lmdb_guard_del(handle, database, &keyValue)
        if code == MDB_NOTFOUND { return false }
        try LMDBError.check(code, "delete an entry")
        return true
    }

    /// Empties `database`, keeping it open.
    func empty(_ database: MDB_dbi) throws {
        try LMDBError.check(lmdb_guard_drop(handle, database, 0), "empty a database")
    }

    /// The last key in `database`, or nil when it is empty.
    func lastKey(_ database: MDB_dbi) throws -> UnsafeRawBufferPointer? {
        try endKey(database, MDB_LAST, "find the last key")
    }

    /// The first key in `database`, or nil when it is empty.
    func firstKey(_ database: MDB_dbi) throws -> UnsafeRawBufferPointer? {
        try endKey(database, MDB_FIRST, "find the first key")
    }

    private func endKey(_ database: MDB_dbi, _ operation: MDB_cursor_op, _ description: String) throws
        -> UnsafeRawBufferPointer?
    {
        var cursor: OpaquePointer?
        try LMDBError.check(mdb_cursor_open(handle, database, &cursor), "open a cursor")
        defer { mdb_cursor_close(cursor) }
        var key = MDB_val()
        var value = MDB_val()
        let code = lmdb_guard_cursor_get(cursor, &key, &value, operation)
        if code == MDB_NOTFOUND { return nil }
        try LMDBError.check(code, description)
        return UnsafeRawBufferPointer(start: key.mv_data, count: key.mv_size)
    }

    /// Number of keys in `database`.
    func count(_ database: MDB_dbi) throws -> Int {
        var stat = MDB_stat()
        try LMDBError.check(lmdb_guard_stat(handle, database, &stat), "count entries")
        return stat.ms_entries
    }

    /// Walks `database` in key order from `start` (or the first key) until `body` returns false.
    func forEach(
        _ database: MDB_dbi, from start: UnsafeRawBufferPointer? = nil,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        _ = try walk(database, from: start, skippingDamage: false, body)
    }

    /// Walks `database` like ``forEach(_:from:_:)``, except that a damaged page on the way (LMDB
    /// reports corruption or faults) does not end the walk: it goes on from the first key after
    /// the damage it can reach (``DamagedKeyRange``), and ends where no key past it can be reached.
    /// For walks that must give all they can rather than nothing, such as rebuilding the index.
    /// Returns how many damaged stretches it passed over.
    func forEachReadable(
        _ database: MDB_dbi, from start: UnsafeRawBufferPointer? = nil,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws -> Int {
        try walk(database, from: start, skippingDamage: true, body)
    }

    /// What `body` reads, or nil when a damaged page is on its way.
    func readable<Value>(_ body: () throws -> Value?) throws -> Value? {
        do {
            return try body()
        } catch let error as StorageError where error.meansDamagedPages {
            return nil
        }
    }

    /// After LMDB reported damage, it refuses every further call of the transaction
    /// (`MDB_TXN_ERROR`): a read-only one is renewed, on the newest snapshot, with `cursor`. A
    /// write transaction cannot be, and its walk ends with the error.
    private func renew(_ cursor: OpaquePointer?) {
        guard !isWrite else { return }
        mdb_txn_reset(handle)
        if mdb_txn_renew(handle) == 0 { mdb_cursor_renew(handle, cursor) }
    }

    private func walk(
        _ database: MDB_dbi, from start: UnsafeRawBufferPointer?, skippingDamage: Bool,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws -> Int {
        var cursor: OpaquePointer?
        try LMDBError.check(mdb_cursor_open(handle, database, &cursor), "open a cursor")
        defer { mdb_cursor_close(cursor) }
        var key = MDB_val()
        var value = MDB_val()
        var operation = MDB_FIRST
        if let start {
            key = MDB_val(mv_size: start.count, mv_data: UnsafeMutableRawPointer(mutating: start.baseAddress))
            operation = MDB_SET_RANGE
        }
        // The last key read, in the transaction's pages: copied only when damage follows it.
        var lastKey = start
        var skipped = 0
        while true {
            var code = lmdb_guard_cursor_get(cursor, &key, &value, operation)
            if code == MDB_NOTFOUND { return skipped }
            if code != 0, skippingDamage, LMDBError.meansCorruption(code) {
                skipped += 1
                code = DamagedKeyRange.seekPast(lastKey.map(Array.init), cursor: cursor, key: &key, value: &value) {
                    renew(cursor)
                }
                // Nothing past the damage that LMDB can reach: the walk has given all it can.
                if code != 0 { return skipped }
            }
            try LMDBError.check(code, "walk a database")
            let keyBuffer = UnsafeRawBufferPointer(start: key.mv_data, count: key.mv_size)
            let valueBuffer = UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size)
            lastKey = keyBuffer
            if try !body(keyBuffer, valueBuffer) { return skipped }
            operation = MDB_NEXT
        }
    }
}
