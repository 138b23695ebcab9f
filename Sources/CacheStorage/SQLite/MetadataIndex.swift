import CSQLite
import Foundation

/// The SQLite index over the entries: last access, expiry, totals, listing.
///
/// It mirrors LMDB's records (see ``StoreMirror``) and adds what LMDB does not keep: last-access
/// times and hit counters. Concurrency: `writer` is used only by the store's writer thread (and by
/// `open`, before that thread starts), or by the ``IndexHelper`` on its behalf while it waits for the
/// helper; queries from other threads go through `reader`, behind its lock.
final class MetadataIndex: @unchecked Sendable {
    enum OpenFailure: Error {
        case damaged(String)
        /// An index of another schema version than ``IndexSchema/currentVersion`` (older or newer).
        case otherSchema(Int)
        case failed(StorageError)
    }

    let path: String
    let writer: SQLiteConnection
    /// The queries' connection; for the store's file, opened at the first query (see ``query(_:)``).
    let reader: Locked<SQLiteConnection?>
    /// The connection `checkpointBesideWriter` uses, opened at its first use.
    let checkpointer = Locked<SQLiteConnection?>(nil)
    /// How far the write-ahead log has grown and been checkpointed, and the writer's restarts of it.
    let log = IndexLogProgress()
    /// Bytes per frame (a page), read once at open.
    let pageBytes: Int
    /// How long the write-ahead log may grow before the writer makes it start over (see
    /// ``restartLogIfPastBound(catchUpBytes:)``); also the size its file is cut back to when it does.
    let logBoundBytes: Int

    /// Where the index lives and how it is opened.
    enum Location {
        /// The store's `index.sqlite`, created with the sharing's mode when missing.
        case file(path: String, sharing: FileSharing)
        /// The same file, opened without writing anything (it must exist and be at the current schema).
        case readOnlyFile(path: String)
        /// A private index in memory, rebuilt from LMDB by the first catch-up: for a read-only
        /// store whose index file cannot be read or lags behind LMDB.
        case memory
    }

    /// Whether this index can be written to disk (false for read-only and in-memory indexes).
    let isPersistent: Bool

    convenience init(
        path: String, sharing: FileSharing = .owner, logBoundBytes: Int = StoreConfiguration().indexLogBoundBytes
    ) throws(OpenFailure) {
        try self.init(.file(path: path, sharing: sharing), logBoundBytes: logBoundBytes)
    }

    init(_ location: Location, logBoundBytes: Int = StoreConfiguration().indexLogBoundBytes) throws(OpenFailure) {
        self.logBoundBytes = logBoundBytes
        let path: String
        switch location {
        case let .file(filePath, _), let .readOnlyFile(filePath): path = filePath
        case .memory:
            // Shared between this index's two connections, private to this process.
            path = "file:imagecache-index-\(UUID().uuidString)?mode=memory&cache=shared"
        }
        self.path = path
        do {
            if case let .file(_, sharing) = location {
                if URL(fileURLWithPath: path).isSymbolicLink {
                    throw OpenFailure.damaged("index.sqlite is a symbolic link")
                }
                // SQLite opens its log and shared memory by name and would follow a link planted
                // there: remove such a link (the link only, never what it points to).
                for suffix in ["-wal", "-shm", "-journal"] where URL(fileURLWithPath: path + suffix).isSymbolicLink {
                    unlink(path + suffix)
                }
                // SQLite gives its -wal and -shm files the mode of the database file.
                try StoreFiles.createFile(URL(fileURLWithPath: path), sharing: sharing)
            }
            if case .memory = location {} else {
                // SQLite opens the file and its companions by name: it would wait forever on a
                // FIFO planted at one of them, and a read-only open would follow a link.
                for suffix in ["", "-wal", "-shm", "-journal"] {
                    if let kind = CheckedPath.nonRegularKind(at: path + suffix) {
                        throw OpenFailure.failed(
                            .unexpectedFileType(path: path + suffix, found: kind, expected: "regular file"))
                    }
                }
            }
            let readOnly = if case .readOnlyFile = location { true } else { false }
            let inMemory = if case .memory = location { true } else { false }
            let writer: SQLiteConnection
            if readOnly && !FileManager.default.fileExists(atPath: path + "-wal") {
                // Nothing waits in a write-ahead log: read the file as it is, without creating
                // the -wal and -shm files a read-only open must not leave behind.
                writer = try SQLiteConnection(path: Self.immutableURI(path), readOnly: true, uri: true)
            } else {
                writer = try SQLiteConnection(path: path, readOnly: readOnly, uri: inMemory)
            }
            if case .readOnlyFile = location {
                sqlite3_busy_timeout(writer.handle, Self.busyTimeoutMilliseconds)
                let version = try Int(writer.scalar("PRAGMA user_version") ?? 0)
                guard version == IndexSchema.currentVersion else { throw OpenFailure.otherSchema(version) }
            } else {
                try Self.configure(writer)
                // A log that starts over is cut back to the bound at the writer's next commit.
                try writer.execute("PRAGMA journal_size_limit = \(logBoundBytes)")
                try Self.createSchemaIfNew(writer)
            }
            // Touch every table once: a damaged file fails here rather than on a later write.
            _ = try writer.scalar("SELECT count(*) FROM mirror_state")
            _ = try writer.scalar("SELECT entries FROM totals")
            self.writer = writer
            pageBytes = try Int(writer.scalar("PRAGMA page_size") ?? 4096)
            switch location {
            case .file:
                // Most opens serve reads of entries, which LMDB answers alone: a second
                // connection and its first look at the log (about a quarter of opening the
                // index) wait for a query.
                self.reader = Locked(nil)
                isPersistent = true
            case .memory:
                let reader = try SQLiteConnection(path: path, uri: true)
                // Shared-cache readers take table locks that a writer cannot wait out; an index
                // kept only until the disk has room again may show a batch before it commits.
                try reader.execute("PRAGMA read_uncommitted = 1")
                self.reader = Locked(reader)
                isPersistent = false
            case .readOnlyFile:
                // Nothing writes after opening: one connection serves both roles.
                self.reader = Locked(writer)
                isPersistent = false
            }
            if isPersistent { watchLog() }
        } catch let failure as OpenFailure {
            throw failure
        } catch let StorageError.sqlite(operation, code, message) {
            let primary = code & 0xFF
            if primary == SQLITE_NOTADB || primary == SQLITE_CORRUPT || primary == SQLITE_CANTOPEN && Self.isDirectory(path)
                || primary == SQLITE_ERROR && operation.contains("FROM")
            {
                throw .damaged("\(message) (\(operation))")
            }
            throw .failed(.sqlite(operation: operation, code: code, message: message))
        } catch {
            throw .failed(error as? StorageError ?? .sqlite(operation: "open", code: -1, message: "\(error)"))
        }
    }

    /// Has SQLite report the log's length after each of the writer's commits (``uncheckpointedLogBytes``).
    /// Unretained: `close` removes the hook before the index can go away.

    func close() {
        checkpointer.withLock { $0?.close() }
        if isPersistent { sqlite3_wal_hook(writer.handle, nil, nil) }
        if isPersistent { try? writer.execute("PRAGMA wal_checkpoint(PASSIVE)") }
        writer.close()
        reader.withLock { $0?.close() }
    }

    /// Runs a query on the reader connection, inside one read snapshot.
    func query<Result>(_ body: (SQLiteConnection) throws -> Result) throws -> Result {
        try reader.withLock { connection in
            let opened = try connection ?? openReader()
            connection = opened
            return try opened.readTransaction { try body(opened) }
        }
    }

    /// The store file's query connection. It only reads, so it needs none of the writer's
    /// settings (the file's WAL mode is the writer's open's to set).
    func openReader() throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path)
        try Self.configureForReading(connection)
        return connection
    }
}
