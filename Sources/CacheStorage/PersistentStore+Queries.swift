import Foundation

extension PersistentStore {
    /// Lists entries' metadata from the index, filtered, ordered and paged by `query`.
    public func entries(matching query: EntryQuery = EntryQuery()) throws -> [EntryMetadata] {
        try checkOpen()
        var clauses: [String] = []
        var binds: [IndexValue] = []
        if let prefix = query.keyPrefix, !prefix.isEmpty {
            // Compared as UTF-8 bytes: Swift counts Characters and SQLite's substr counts code
            // points, which disagree as soon as the prefix holds a combining mark.
            clauses.append("substr(CAST(key AS BLOB), 1, ?) = CAST(? AS BLOB)")
            binds.append(.integer(Int64(prefix.utf8.count)))
            binds.append(.text(prefix))
            // Keys compare bytewise (BINARY collation), so every key starting with the prefix sorts
            // at or after it, and the index range narrows the scan.
            clauses.append("key >= ?")
            binds.append(.text(prefix))
        }
        // The index can only say the host's text occurs somewhere in the key; KeyHost decides,
        // so a host named in another site's path or query never matches.
        let host = query.host
        if let host {
            clauses.append("instr(lower(key), ?) > 0")
            binds.append(.text(KeyHost.asciiLowercased(host)))
        }
        if let date = query.expiredAt {
            clauses.append("expires_at <= ?")
            binds.append(.integer(date.millisecondsSince1970))
        }
        if let date = query.storedBefore {
            clauses.append("stored_at < ?")
            binds.append(.integer(date.millisecondsSince1970))
        }
        if let date = query.accessedBefore {
            clauses.append("last_access < ?")
            binds.append(.integer(date.millisecondsSince1970))
        }
        if let size = query.largerThanBytes {
            clauses.append("byte_size > ?")
            binds.append(.integer(Int64(size)))
        }
        if let format = query.format {
            clauses.append("format = ?")
            binds.append(.text(format))
        }
        if let source = query.derivedFrom {
            clauses.append("source_key = ?")
            binds.append(.text(source))
        }
        if let derived = query.isDerived {
            clauses.append(derived ? "source_key IS NOT NULL" : "source_key IS NULL")
        }
        let order =
            switch query.order {
            case .key: "key"
            case .leastRecentlyUsed: "last_access, stored_at"
            case .mostRecentlyUsed: "last_access DESC, stored_at DESC"
            case .largest: "byte_size DESC, key"
            case .newest: "stored_at DESC, key"
            case .oldest: "stored_at, key"
            }
        let whereClause = clauses.isEmpty ? "" : " WHERE " + clauses.joined(separator: " AND ")
        let sql = "SELECT \(IndexRow.columns) FROM entries\(whereClause) ORDER BY \(order) LIMIT ? OFFSET ?"
        // With a host filter, paging counts only the rows KeyHost keeps, so it happens below.
        let limit = query.limit, offset = max(0, query.offset)
        binds.append(.integer(host == nil ? Int64(limit ?? -1) : -1))
        binds.append(.integer(host == nil ? Int64(offset) : 0))
        return try queryIndex { connection in
            let statement = try connection.prepare(built: sql)
            for (position, value) in binds.enumerated() {
                switch value {
                case let .integer(number): try statement.bind(Int32(position + 1), number)
                case let .text(text): try statement.bind(Int32(position + 1), text)
                }
            }
            var rows: [EntryMetadata] = []
            var skipped = 0
            while try statement.step() {
                if let host {
                    guard KeyHost.matches(statement.string(0) ?? "", host: host) else { continue }
                    if skipped < offset {
                        skipped += 1
                        continue
                    }
                    if let limit, rows.count >= limit { break }
                }
                rows.append(IndexRow.metadata(statement))
            }
            return rows
        }
    }

    /// Counts, sizes, formats, expiry, limits and file sizes, from the index and LMDB.
    public func statistics() throws -> StoreStatistics {
        try checkOpen()
        let now = Date().millisecondsSince1970
        var stats = try queryIndex { connection -> StoreStatistics in
            let totals = try core.index.totals(on: connection)
            var formats: [String: StoreStatistics.FormatUsage] = [:]
            let byFormat = try connection.prepare(
                "SELECT coalesce(format, 'unknown'), count(*), coalesce(sum(byte_size), 0) FROM entries GROUP BY 1")
            while try byFormat.step() {
                formats[byFormat.string(0) ?? "unknown"] = .init(
                    entries: Int(byFormat.int64(1)), bytes: Int(byFormat.int64(2)))
            }
            let expiry = try connection.prepare(
                """
                SELECT coalesce(sum(expires_at <= ?1), 0), coalesce(sum(expires_at > ?1), 0),
                       coalesce(sum(expires_at IS NULL), 0), min(last_access), max(last_access)
                FROM entries
                """)
            try expiry.bind(1, now)
            _ = try expiry.step()
            let largest = try connection.prepare(built:
                "SELECT \(IndexRow.columns) FROM entries ORDER BY byte_size DESC LIMIT 5")
            var largestEntries: [EntryMetadata] = []
            while try largest.step() { largestEntries.append(IndexRow.metadata(largest)) }
            let derived = try connection.prepare(
                "SELECT count(*), coalesce(sum(byte_size), 0) FROM entries WHERE source_key IS NOT NULL")
            _ = try derived.step()
            let counters = try connection.prepare("SELECT name, value FROM counters")
            var hits = 0
            var misses = 0
            var movedAside = 0
            var damagedReads = 0
            while try counters.step() {
                if counters.string(0) == "hits" { hits = Int(counters.int64(1)) }
                if counters.string(0) == "misses" { misses = Int(counters.int64(1)) }
                if counters.string(0) == StoreOpener.movedAsideCounter { movedAside = Int(counters.int64(1)) }
                if counters.string(0) == "damaged_reads" { damagedReads = Int(counters.int64(1)) }
            }
            return StoreStatistics(
                entries: totals.entries, bytes: totals.bytes, formats: formats,
                expiredEntries: Int(expiry.int64(0)), unexpiredEntries: Int(expiry.int64(1)),
                entriesWithoutExpiry: Int(expiry.int64(2)),
                oldestAccess: expiry.optionalInt64(3).map(Date.init(millisecondsSince1970:)),
                newestAccess: expiry.optionalInt64(4).map(Date.init(millisecondsSince1970:)),
                largestEntries: largestEntries, byteLimit: core.configuration.byteLimit,
                effectiveByteLimit: core.configuration.byteLimit, byteLimitBoundByFreeSpace: false,
                volumeBytes: nil, volumeAvailableBytes: nil, writeStatus: .writable,
                entryLimit: core.configuration.entryLimit, mapBytes: 0, mapUsedBytes: 0, indexFileBytes: 0,
                hits: hits, misses: misses,
                derivedEntries: Int(derived.int64(0)), derivedBytes: Int(derived.int64(1)),
                storesMovedAside: movedAside, damagedReadsRefused: damagedReads)
        }
        let usage = try core.blobs.usage()
        stats.mapBytes = usage.mapBytes
        stats.mapUsedBytes = usage.usedBytes
        stats.indexFileBytes = ([core.layout.index] + core.layout.indexSidecars).compactMap(\.fileSize).reduce(0, +)
        let volume = core.space.volume(forceCheck: true)
        stats.volumeBytes = volume?.totalBytes
        stats.volumeAvailableBytes = volume?.availableBytes
        let limit = core.byteLimit(storeBytes: stats.bytes)
        stats.effectiveByteLimit = limit.bytes
        stats.byteLimitBoundByFreeSpace = limit.boundByFreeSpace
        if let reason = core.readOnlyReason {
            stats.writeStatus = .readOnly(reason: reason)
        } else if core.space.pausedError != nil {
            stats.writeStatus = .pausedDiskFull
        }
        return stats
    }
}

extension PersistentStore {
    /// Runs a query on the index. An index SQLite finds malformed is, under the default
    /// recovery (``RecoveryPolicy/rebuild``), rebuilt from LMDB by the writer, and the query run
    /// again: every row it holds is LMDB's to give back. Otherwise the error is thrown.
    func queryIndex<Result>(_ body: (SQLiteConnection) throws -> Result) throws -> Result {
        do {
            return try core.index.query(body)
        } catch where MetadataIndex.isDamage(error) && core.configuration.recovery == .rebuild && !core.isReadOnly {
            core.logger.error("Cache index is malformed; rebuilding it from the blob store", metadata: ["error": "\(error)"])
            _ = try core.writer.submitAndWait(.rebuildIndex)
            return try core.index.query(body)
        }
    }
}

private enum IndexValue {
    case integer(Int64)
    case text(String)
}

/// The columns a listing reads and how they become ``EntryMetadata``.
enum IndexRow {
    static let columns = """
        key, byte_size, checksum, stored_at, last_access, expires_at, etag, last_modified, response_date, \
        content_type, format, pixel_width, pixel_height, cost, response_headers, source_key, source_checksum
        """

    static func metadata(_ row: SQLiteStatement) -> EntryMetadata {
        let attributes = EntryAttributes(
            expiresAt: row.optionalInt64(5).map(Date.init(millisecondsSince1970:)),
            etag: row.string(6),
            lastModified: row.string(7),
            responseDate: row.optionalInt64(8).map(Date.init(millisecondsSince1970:)),
            responseHeaders: row.bytes(14).map { Data($0) },
            contentType: row.string(9),
            format: row.string(10),
            pixelWidth: row.optionalInt64(11).map { Int($0) },
            pixelHeight: row.optionalInt64(12).map { Int($0) },
            cost: row.optionalInt64(13).map { Int($0) })
        return EntryMetadata(
            key: row.string(0) ?? "", byteCount: Int(row.int64(1)), checksum: UInt64(bitPattern: row.int64(2)),
            storedAt: Date(millisecondsSince1970: row.int64(3)),
            lastAccess: Date(millisecondsSince1970: row.int64(4)), attributes: attributes,
            source: row.string(15).map { EntrySource(key: $0, checksum: UInt64(bitPattern: row.int64(16))) })
    }
}
