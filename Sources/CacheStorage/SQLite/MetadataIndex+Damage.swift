import CSQLite
import Foundation

/// Telling a damaged index file, and replacing it.
extension MetadataIndex {
    /// Whether `error` says the index file is damaged (SQLite found it malformed, or not a
    /// database), rather than busy, full or unreadable: an index every byte of which can be
    /// rebuilt from LMDB.
    static func isDamage(_ error: any Error) -> Bool {
        guard case let StorageError.sqlite(_, code, _) = error else { return false }
        return code & 0xFF == SQLITE_CORRUPT || code & 0xFF == SQLITE_NOTADB
    }

    /// Whether SQLite's own check finds the file damaged. Reads every page: for a repair, never
    /// for an open.
    func failsIntegrityCheck() -> Bool {
        guard isPersistent else { return false }
        do {
            let statement = try writer.prepare("PRAGMA quick_check(1)")
            defer { sqlite3_reset(statement.handle) }
            return try !statement.step() || statement.string(0) != "ok"
        } catch {
            return Self.isDamage(error)
        }
    }

    /// Replaces the file's contents with an empty index of the current schema, which the next
    /// catch-up rebuilds from LMDB. Writer thread only.
    ///
    /// Through SQLite's backup API, onto the open file: every connection to it, in this process
    /// and in others, sees one commit that replaced every page, as if another process had
    /// written it; nothing is moved or unlinked under them. Damaged pages are overwritten, not
    /// read.
    func replaceWithEmpty() throws {
        guard isPersistent else { return }
        let empty = try SQLiteConnection(path: ":memory:")
        try empty.execute("PRAGMA page_size = \(pageBytes)")
        try empty.execute(IndexSchema.creation)
        try empty.execute("PRAGMA user_version = \(IndexSchema.currentVersion)")
        reader.withLock { connection in
            connection?.close()
            connection = nil
        }
        writer.resetStatements()
        guard let backup = sqlite3_backup_init(writer.handle, "main", empty.handle, "main") else {
            throw StorageError.sqlite(
                operation: "replace the damaged index", code: sqlite3_errcode(writer.handle),
                message: String(cString: sqlite3_errmsg(writer.handle)))
        }
        let stepped = sqlite3_backup_step(backup, -1)
        let finished = sqlite3_backup_finish(backup)
        guard stepped == SQLITE_DONE, finished == SQLITE_OK else {
            let code = stepped == SQLITE_DONE ? finished : stepped
            throw StorageError.sqlite(
                operation: "replace the damaged index", code: code, message: String(cString: sqlite3_errstr(code)))
        }
        try writer.execute("PRAGMA journal_mode = WAL")
    }
}
