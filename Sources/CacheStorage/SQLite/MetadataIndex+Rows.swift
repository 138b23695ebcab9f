import CSQLite
import Foundation

/// The writer's side: the rows, the totals, the counters and the mirror's state (writer thread only).
extension MetadataIndex {
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

    /// Whether the index already mirrors LMDB up to `head` for the store `storeID` (a read-only
    /// store can use it as it is only then).
    func isCaughtUp(storeID: [UInt8], head: UInt64) -> Bool {
        guard let state = try? mirrorState() else { return false }
        return state.storeID == storeID && state.appliedSequence == head
    }

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

    func bind(_ row: IndexRowKey, to statement: SQLiteStatement) throws {
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

    /// The row key in columns `column` (stored_at) and `column + 1` (digest).
    static func row(_ statement: SQLiteStatement, column: Int32) -> IndexRowKey? {
        digest(statement, column: column + 1).map { IndexRowKey(storedAt: statement.int64(column), digest: $0) }
    }

    static func digest(_ statement: SQLiteStatement, column: Int32) -> KeyDigest? {
        // Read in place: eviction reads a digest per victim, half a million in a mass eviction.
        statement.withBytes(column) { KeyDigest(bytes: $0) }
    }
}
