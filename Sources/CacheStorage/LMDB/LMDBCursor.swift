import CLMDB
import CLMDBGuard
import Foundation

/// A cursor on one database of a write transaction, for runs of lookups and deletions of keys
/// that sort near each other: LMDB looks for a key on the page the cursor is on before it
/// descends from the root, so keys taken in order cost one page search each, not a descent.
///
/// LMDB closes a write transaction's cursors when the transaction ends; like the transaction's
/// buffers, a cursor is valid only inside the closure that received the transaction.
struct LMDBCursor {
    private let handle: OpaquePointer

    init(_ txn: LMDBTransaction, _ database: MDB_dbi) throws {
        var cursor: OpaquePointer?
        try LMDBError.check(mdb_cursor_open(txn.handle, database, &cursor), "open a cursor")
        guard let cursor else { throw LMDBError.error(EINVAL, "open a cursor") }
        handle = cursor
    }

    /// The value under `key`, the cursor left on it; nil (and the cursor left near it) if absent.
    func find(_ key: UnsafeRawBufferPointer) throws -> UnsafeRawBufferPointer? {
        var keyValue = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var value = MDB_val()
        let code = lmdb_guard_cursor_get(handle, &keyValue, &value, MDB_SET)
        if code == MDB_NOTFOUND { return nil }
        try LMDBError.check(code, "read an entry")
        return UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size)
    }

    /// Deletes the key `find` found.
    func deleteFound() throws {
        try LMDBError.check(lmdb_guard_cursor_del(handle, 0), "delete an entry")
    }

    /// Walks the database from its first key, deleting each key `delete` returns true for and
    /// passing over those it returns false for, until it returns nil or the keys run out: one
    /// walk along the leaves, where deleting each key by itself descends from the root again.
    func deleteLeading(_ delete: (_ key: UnsafeRawBufferPointer) -> Bool?) throws {
        var key = MDB_val()
        var value = MDB_val()
        var operation = MDB_FIRST
        while true {
            let code = lmdb_guard_cursor_get(handle, &key, &value, operation)
            if code == MDB_NOTFOUND { return }
            try LMDBError.check(code, "read an entry")
            // After a deletion the cursor is on the key that followed, which MDB_NEXT returns.
            operation = MDB_NEXT
            guard let verdict = delete(UnsafeRawBufferPointer(start: key.mv_data, count: key.mv_size)) else { return }
            if verdict { try deleteFound() }
        }
    }

    /// Deletes `key`; returns whether it existed.
    @discardableResult
    func delete(_ key: UnsafeRawBufferPointer) throws -> Bool {
        guard try find(key) != nil else { return false }
        try deleteFound()
        return true
    }
}
