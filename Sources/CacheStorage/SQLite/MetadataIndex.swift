import CSQLite
import Foundation
import Synchronization

/// A change to the `totals` row, summed over a transaction.
struct TotalsChange {
    var entries: Int64 = 0
    var bytes: Int64 = 0

    static func += (total: inout TotalsChange, change: TotalsChange) {
        total.entries += change.entries
        total.bytes += change.bytes
    }
}

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
    private let reader: Locked<SQLiteConnection?>
    /// The connection `checkpointBesideWriter` uses, opened at its first use.
    private let checkpointer = Locked<SQLiteConnection?>(nil)
    /// Frames in the write-ahead log after this process's last commit (SQLite's WAL hook reports it).
    private let framesInLog = Atomic<Int>(0)
    /// Frames the last checkpoint copied back: those below it cost nothing to keep.
    private let framesCheckpointed = Atomic<Int>(0)
    /// Checkpoints `checkpointBesideWriter` has run, for tests of how often the writer asks.
    let checkpointsBesideWriter = Atomic<Int>(0)
    /// Bytes per frame (a page), read once at open.
    private let pageBytes: Int

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

    convenience init(path: String, sharing: FileSharing = .owner) throws(OpenFailure) {
        try self.init(.file(path: path, sharing: sharing))
    }

    init(_ location: Location) throws(OpenFailure) {
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
    private func watchLog() {
        sqlite3_wal_hook(writer.handle, { context, _, _, frames in
            let index = Unmanaged<MetadataIndex>.fromOpaque(context!).takeUnretainedValue()
            // Fewer frames than before: the log restarted from its beginning, and what the last
            // checkpoint copied is behind it. (A checkpoint that ends just after a restart may
            // record its count late: the next checkpoint then comes at most one threshold late.)
            if Int(frames) < index.framesInLog.exchange(Int(frames), ordering: .relaxed) {
                index.framesCheckpointed.store(0, ordering: .relaxed)
            }
            return SQLITE_OK
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    private static func immutableURI(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        return "file:\(path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path)?immutable=1"
    }

    /// Whether the index already mirrors LMDB up to `head` for the store `storeID` (a read-only
    /// store can use it as it is only then).
    func isCaughtUp(storeID: [UInt8], head: UInt64) -> Bool {
        guard let state = try? mirrorState() else { return false }
        return state.storeID == storeID && state.appliedSequence == head
    }

    private static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// What every connection to the store's file needs, one that only reads included.
    private static func configureForReading(_ connection: SQLiteConnection) throws {
        // Another process may hold the write lock for a whole batch; wait rather than fail.
        sqlite3_busy_timeout(connection.handle, Self.busyTimeoutMilliseconds)
        // Eviction touches many index pages at once; 8 MiB keeps them cached.
        try connection.execute("PRAGMA cache_size = -8192")
    }

    private static func configure(_ connection: SQLiteConnection) throws {
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
    private static func createSchemaIfNew(_ connection: SQLiteConnection) throws {
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

    /// Copies the write-ahead log back into the database when it has grown past `thresholdBytes`.
    /// Passive: never waits for readers, in this process or another.
    /// With `truncating`, the log file is also cut back to nothing when no reader is in it (for a
    /// volume short of space, where the log's size counts against the store).
    func checkpointIfLarge(thresholdBytes: Int, truncating: Bool = false) {
        guard isPersistent else { return }
        let walSize = logBytes
        guard walSize > thresholdBytes, walSize > 0 else { return }
        try? writer.execute("PRAGMA wal_checkpoint(PASSIVE)")
        if truncating {
            // Never waits: a reader in the log (this process or another) just leaves it for later.
            sqlite3_busy_timeout(writer.handle, 0)
            try? writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            sqlite3_busy_timeout(writer.handle, Self.busyTimeoutMilliseconds)
        }
    }

    /// How long a connection waits for another process's lock before SQLite reports it busy.
    static let busyTimeoutMilliseconds: Int32 = 10_000

    /// Begins a write transaction on `writer` when SQLite's write lock is free now, without waiting
    /// for another process that holds it; false when it is not. For work that can as well be done
    /// after (``IndexPrefill``): waiting here, and then again for the catch-up, would make a put
    /// wait twice for the same holder.
    func beginWriteIfFree() -> Bool {
        writer.resetStatements()
        sqlite3_busy_timeout(writer.handle, 0)
        defer { sqlite3_busy_timeout(writer.handle, Self.busyTimeoutMilliseconds) }
        return (try? writer.beginImmediate()) != nil
    }

    /// The write-ahead log's size on disk.
    var logBytes: Int { URL(fileURLWithPath: path + "-wal").fileSize ?? 0 }

    /// Bytes written to the write-ahead log, as of this process's last commit, that no checkpoint
    /// has copied back yet. The file's size cannot tell: SQLite reuses a checkpointed log from its
    /// start without shrinking it, so a log once past a threshold would stay past it.
    var uncheckpointedLogBytes: Int {
        max(0, framesInLog.load(ordering: .relaxed) - framesCheckpointed.load(ordering: .relaxed)) * pageBytes
    }

    /// A passive checkpoint on a connection of its own, for a thread beside the writer (see
    /// ``BackgroundWriteback``): it copies what no reader still needs and never blocks the writer.
    func checkpointBesideWriter() {
        guard isPersistent else { return }
        checkpointer.withLock { connection in
            if connection == nil {
                connection = try? SQLiteConnection(path: path)
                // A connection learns the file is in WAL mode when it first reads it; until then
                // a checkpoint call reports "not in WAL mode" and copies nothing.
                _ = try? connection?.scalar("PRAGMA journal_mode")
            }
            // Busy (another process checkpointing) or failed: the writer's next request retries.
            guard let handle = connection?.handle else { return }
            checkpointsBesideWriter.add(1, ordering: .relaxed)
            var frames: Int32 = 0
            var copied: Int32 = 0
            if sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, &frames, &copied) == SQLITE_OK {
                framesCheckpointed.store(Int(copied), ordering: .relaxed)
            }
        }
    }

    func close() {
        checkpointer.withLock { $0?.close() }
        if isPersistent { sqlite3_wal_hook(writer.handle, nil, nil) }
        if isPersistent { try? writer.execute("PRAGMA wal_checkpoint(PASSIVE)") }
        writer.close()
        reader.withLock { $0?.close() }
    }

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
    private func openReader() throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path)
        try Self.configureForReading(connection)
        return connection
    }

    // MARK: Writer side (writer thread only)

    func mirrorState() throws -> (storeID: [UInt8]?, appliedSequence: UInt64) {
        let statement = try writer.prepare("SELECT store_id, applied_seq FROM mirror_state WHERE id = 1")
        defer { sqlite3_reset(statement.handle) }
        guard try statement.step() else { return (nil, 0) }
        // A negative value (damage) reads as far ahead of LMDB, which makes the mirror rebuild.
        return (statement.bytes(0), UInt64(bitPattern: statement.int64(1)))
    }

    func setMirrorState(storeID: [UInt8], appliedSequence: UInt64) throws {
        let statement = try writer.prepare("UPDATE mirror_state SET store_id = ?, applied_seq = ? WHERE id = 1")
        try statement.bind(1, blob: storeID)
        try statement.bind(2, Int64(bitPattern: appliedSequence))
        try statement.run()
    }

    /// Inserts or refreshes the entry's row (see ``IndexRowKey``), keeping a later last-access
    /// time already recorded; `blobNumber` is the number its record names, if any (see
    /// ``EvictionVictim``). - Returns: the change to the totals (entries, bytes).
    @discardableResult
    func upsert(digest: KeyDigest, metadata: EntryMetadata, blobNumber: UInt64?) throws -> TotalsChange {
        let row = IndexRowKey(metadata, digest: digest)
        let previous = try writer.prepare("SELECT byte_size FROM entries WHERE stored_at = ? AND digest = ?")
        try bind(row, to: previous)
        let oldSize: Int64? = try previous.step() ? previous.int64(0) : nil
        sqlite3_reset(previous.handle)
        let statement = try writer.prepare(
            """
            INSERT INTO entries (digest, key, byte_size, checksum, stored_at, last_access, expires_at, etag,
                last_modified, response_date, content_type, format, pixel_width, pixel_height, cost,
                response_headers, source_key, source_checksum, blob_number)
            VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)
            ON CONFLICT (stored_at, digest) DO UPDATE SET key = excluded.key, byte_size = excluded.byte_size,
                checksum = excluded.checksum,
                last_access = max(entries.last_access, excluded.last_access),
                expires_at = excluded.expires_at, etag = excluded.etag, last_modified = excluded.last_modified,
                response_date = excluded.response_date, content_type = excluded.content_type,
                format = excluded.format, pixel_width = excluded.pixel_width,
                pixel_height = excluded.pixel_height, cost = excluded.cost,
                response_headers = excluded.response_headers, source_key = excluded.source_key,
                source_checksum = excluded.source_checksum, blob_number = excluded.blob_number
            """)
        let attributes = metadata.attributes
        try digest.withBytes { try statement.bind(1, blob: $0) }
        try statement.bind(2, metadata.key)
        try statement.bind(3, metadata.byteCount)
        try statement.bind(4, Int64(bitPattern: metadata.checksum))
        try statement.bind(5, row.storedAt)
        try statement.bind(6, attributes.expiresAt?.millisecondsSince1970)
        try statement.bind(7, attributes.etag)
        try statement.bind(8, attributes.lastModified)
        try statement.bind(9, attributes.responseDate?.millisecondsSince1970)
        try statement.bind(10, attributes.contentType)
        try statement.bind(11, attributes.format)
        try statement.bind(12, attributes.pixelWidth)
        try statement.bind(13, attributes.pixelHeight)
        try statement.bind(14, attributes.cost)
        if let headers = attributes.responseHeaders {
            try headers.withUnsafeBytes { try statement.bind(15, blob: $0) }
        } else {
            try statement.bind(15, blob: nil as UnsafeRawBufferPointer?)
        }
        try statement.bind(16, metadata.source?.key)
        try statement.bind(17, metadata.source.map { Int64(bitPattern: $0.checksum) })
        try statement.bind(18, blobNumber.map { Int64(bitPattern: $0) })
        try statement.run()
        return TotalsChange(entries: oldSize == nil ? 1 : 0, bytes: Int64(metadata.byteCount) - (oldSize ?? 0))
    }

    /// Deletes `row`. - Returns: the change to the totals.
    @discardableResult
    func delete(row: IndexRowKey) throws -> TotalsChange {
        let statement = try writer.prepare("DELETE FROM entries WHERE stored_at = ? AND digest = ? RETURNING byte_size")
        try bind(row, to: statement)
        var change = TotalsChange()
        while try statement.step() {
            change.entries -= 1
            change.bytes -= statement.int64(0)
        }
        return change
    }

    /// Deletes the candidates' rows: the first rows in access order as one range of that index
    /// when they were chosen in the write transaction under way (no other connection has written
    /// since, so the range holds exactly them), otherwise row by row (see `delete(rows:)`).
    /// Deleting 1,024 victims of 1,000,000, the range took about half the time, with no temporary
    /// table to fill; returning the deleted rows, to prove the range held the victims, cost about
    /// as much again. - Returns: the change to the totals.
    func delete(_ candidates: EvictionCandidates) throws -> TotalsChange {
        guard let end = candidates.accessOrderEnd, let chosenIn = candidates.chosenInTransaction,
            chosenIn == writer.writeTransaction
        else { return try delete(rows: candidates.victims.map(\.row)) }
        try writer.execute("SAVEPOINT access_order_range")
        let statement = try writer.prepare("DELETE FROM entries WHERE (last_access, stored_at, digest) <= (?, ?, ?)")
        try statement.bind(1, end.lastAccess)
        try statement.bind(2, end.row.storedAt)
        try end.row.digest.withBytes { try statement.bind(3, blob: $0) }
        try statement.run()
        if sqlite3_changes(writer.handle) == candidates.victims.count {
            try writer.execute("RELEASE access_order_range")
            return TotalsChange(entries: -Int64(candidates.victims.count), bytes: -candidates.bytes)
        }
        // Only this connection's own writes since the choice can change the range; none is made
        // between them, and this keeps such a change from deleting a row that was not chosen.
        try writer.execute("ROLLBACK TO access_order_range")
        try writer.execute("RELEASE access_order_range")
        return try delete(rows: candidates.victims.map(\.row))
    }

    /// Deletes many rows with one statement (through a temporary table), which costs a third of
    /// one `DELETE` per row when an eviction removes thousands. - Returns: the change to the totals.
    func delete(rows: some Collection<IndexRowKey>) throws -> TotalsChange {
        guard rows.count > 8 else {
            var change = TotalsChange()
            for row in rows { change += try delete(row: row) }
            return change
        }
        try writer.execute(
            "CREATE TEMP TABLE IF NOT EXISTS doomed (stored_at INTEGER, digest BLOB, PRIMARY KEY (stored_at, digest)) WITHOUT ROWID")
        let insert = try writer.prepare("INSERT OR IGNORE INTO temp.doomed VALUES (?, ?)")
        for row in rows {
            try bind(row, to: insert)
            try insert.run()
            sqlite3_reset(insert.handle)
        }
        let statement = try writer.prepare(
            "DELETE FROM entries WHERE (stored_at, digest) IN (SELECT stored_at, digest FROM temp.doomed) RETURNING byte_size")
        var change = TotalsChange()
        while try statement.step() {
            change.entries -= 1
            change.bytes -= statement.int64(0)
        }
        try writer.execute("DELETE FROM temp.doomed")
        return change
    }

    private func bind(_ row: IndexRowKey, to statement: SQLiteStatement) throws {
        try statement.bind(1, row.storedAt)
        try row.digest.withBytes { try statement.bind(2, blob: $0) }
    }

    /// Applies the summed changes of a transaction's upserts and deletes to `totals`.
    func adjustTotals(_ change: TotalsChange) throws {
        guard change.entries != 0 || change.bytes != 0 else { return }
        let statement = try writer.prepare("UPDATE totals SET entries = entries + ?, bytes = bytes + ? WHERE id = 1")
        try statement.bind(1, change.entries)
        try statement.bind(2, change.bytes)
        try statement.run()
    }

    /// Every row in the index, for a full rebuild.
    func allRows() throws -> Set<IndexRowKey> {
        let statement = try writer.prepare("SELECT stored_at, digest FROM entries")
        var rows = Set<IndexRowKey>()
        while try statement.step() {
            if let row = Self.row(statement, column: 0) { rows.insert(row) }
        }
        return rows
    }

    /// Persists buffered last-access times (never moving one backwards).
    func recordAccesses(_ accesses: [IndexRowKey: Int64]) throws {
        let statement = try writer.prepare(
            "UPDATE entries SET last_access = ?3 WHERE stored_at = ?1 AND digest = ?2 AND last_access < ?3")
        for (row, milliseconds) in accesses {
            try bind(row, to: statement)
            try statement.bind(3, milliseconds)
            try statement.run()
            sqlite3_reset(statement.handle)
        }
    }

    func addToCounters(_ deltas: [String: Int64]) throws {
        let statement = try writer.prepare(
            "INSERT INTO counters (name, value) VALUES (?1, ?2) ON CONFLICT (name) DO UPDATE SET value = value + ?2")
        for (name, delta) in deltas where delta != 0 {
            try statement.bind(1, name)
            try statement.bind(2, delta)
            try statement.run()
            sqlite3_reset(statement.handle)
        }
    }

    func totals(on connection: SQLiteConnection) throws -> (entries: Int, bytes: Int) {
        let statement = try connection.prepare("SELECT entries, bytes FROM totals WHERE id = 1")
        defer { sqlite3_reset(statement.handle) }
        guard try statement.step() else { return (0, 0) }
        return (Int(statement.int64(0)), Int(statement.int64(1)))
    }

    /// Rows to evict, expired entries first (soonest-expired first), then least recently used,
    /// until `bytesToFree` and `entriesToFree` are both covered, or, once `slice` are chosen,
    /// as soon as `required` is (the part an eviction slice must free, see `StoreCore.evict`).
    func evictionCandidates(
        bytesToFree: Int, entriesToFree: Int, now: Date,
        atMost slice: Int = .max, unlessNeededFor required: (bytes: Int, entries: Int) = (0, 0)
    ) throws -> EvictionCandidates {
        var chosen = EvictionCandidates(chosenInTransaction: writer.writeTransaction)
        var seen = Set<IndexRowKey>()
        func done() -> Bool {
            let count = chosen.victims.count
            let freedBytes = Int(chosen.bytes)
            let reachedTargets = freedBytes >= bytesToFree && count >= entriesToFree
            let reachedRequired = freedBytes >= required.bytes && count >= required.entries
            return reachedTargets || (count >= slice && reachedRequired)
        }
        func victim(_ statement: SQLiteStatement) -> EvictionVictim? {
            Self.row(statement, column: 0).map {
                EvictionVictim(row: $0, blobNumber: statement.optionalInt64(3).map { UInt64(bitPattern: $0) })
            }
        }
        let expired = try writer.prepare(
            "SELECT stored_at, digest, byte_size, blob_number FROM entries WHERE expires_at <= ? ORDER BY expires_at")
        try expired.bind(1, now.millisecondsSince1970)
        while !done(), try expired.step() {
            guard let victim = victim(expired) else { continue }
            chosen.victims.append(victim)
            seen.insert(victim.row)
            chosen.bytes += expired.int64(2)
        }
        sqlite3_reset(expired.handle)
        guard !done() else { return chosen }
        let byAccess = try writer.prepare(Self.accessOrderVictims)
        var prefix = chosen.isEmpty
        while !done(), try byAccess.step() {
            guard let victim = victim(byAccess), seen.isEmpty || !seen.contains(victim.row) else {
                prefix = false
                continue
            }
            chosen.victims.append(victim)
            chosen.bytes += byAccess.int64(2)
            if prefix { chosen.accessOrderEnd = (byAccess.int64(4), victim.row) }
        }
        sqlite3_reset(byAccess.handle)
        if !prefix { chosen.accessOrderEnd = nil }
        return chosen
    }

    /// Every row with what eviction needs of it, least recently used first: in the access-order
    /// index's order, from that index alone (it holds each of these columns, see ``IndexSchema``).
    static let accessOrderVictims: StaticString = """
        SELECT stored_at, digest, byte_size, blob_number, last_access FROM entries
        ORDER BY last_access, stored_at, digest
        """

    /// The row key in columns `column` (stored_at) and `column + 1` (digest).
    static func row(_ statement: SQLiteStatement, column: Int32) -> IndexRowKey? {
        digest(statement, column: column + 1).map { IndexRowKey(storedAt: statement.int64(column), digest: $0) }
    }

    static func digest(_ statement: SQLiteStatement, column: Int32) -> KeyDigest? {
        // Read in place: eviction reads a digest per victim, half a million in a mass eviction.
        statement.withBytes(column) { KeyDigest(bytes: $0) }
    }
}
