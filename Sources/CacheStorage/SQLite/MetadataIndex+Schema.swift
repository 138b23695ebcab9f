import CSQLite
import Foundation

/// How the index's connections are set up, and its schema created.
extension MetadataIndex {
    /// What every connection to the store's file needs, one that only reads included.
    static func configureForReading(_ connection: SQLiteConnection) throws {
        // Another process may hold the write lock for a whole batch; wait rather than fail.
        sqlite3_busy_timeout(connection.handle, Self.busyTimeoutMilliseconds)
        // Eviction touches many index pages at once; 8 MiB keeps them cached.
        try connection.execute("PRAGMA cache_size = -8192")
    }

    static func configure(_ connection: SQLiteConnection) throws {
        try configureForReading(connection)
        try connection.execute("PRAGMA journal_mode = WAL")
        // Checkpoints run on the writer after callers have their results (see checkpointIfLarge),
        // not inside whichever commit happens to cross SQLite's threshold.
        try connection.execute("PRAGMA wal_autocheckpoint = 0")
        // NORMAL in WAL mode never corrupts; a power loss may drop the last commits, which the
        // mirror replays from LMDB's journal or rebuilds.
        try connection.execute("PRAGMA synchronous = NORMAL")
        try connection.execute("PRAGMA foreign_keys = OFF")
        // Deleted rows are zeroed only on pages a commit writes anyway: scrubbing every page a
        // deletion frees (`ON`, Debian's default) wrote each such page to the log too, a third of
        // what a mass eviction wrote.
        // Freed pages keep their old bytes until reused, as LMDB's do (the storage documentation
        // says so among what the store does not defend against).
        try connection.execute("PRAGMA secure_delete = FAST")
    }

    /// Creates the schema in a new index file (`user_version` 0); throws ``OpenFailure/otherSchema(_:)``
    /// for an index of another version.
    static func createSchemaIfNew(_ connection: SQLiteConnection) throws {
        func version() throws -> Int { try Int(connection.scalar("PRAGMA user_version") ?? 0) }
        if try version() == 0 {
            try connection.transaction {
                // Read again under the write lock: another process may have created it meanwhile.
                guard try version() == 0 else { return }
                try connection.execute(IndexSchema.creation)
                try connection.execute("PRAGMA user_version = \(IndexSchema.currentVersion)")
            }
        }
        let version = try version()
        guard version == IndexSchema.currentVersion else { throw OpenFailure.otherSchema(version) }
    }

    /// How long a connection waits for another process's lock before SQLite reports it busy.
    static let busyTimeoutMilliseconds: Int32 = 10_000

    static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    static func immutableURI(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        return "file:\(path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path)?immutable=1"
    }
}
