import Foundation

extension PersistentStore {
    /// The entry for `key`, bytes and metadata, or nil. Records the read for LRU order.
    ///
    /// The bytes are those the entry was stored with: a record whose blob is missing, of another
    /// length or refuted by its checksum is a miss, counted in
    /// ``StoreStatistics/damagedReadsRefused`` and removed in the background, so the next load
    /// fetches the resource again. Each blob is hashed at its first read after the store was
    /// opened (see the storage design's invariants).
    public func get(_ key: String) throws -> CachedEntry? {
        try checkOpen()
        let digest = KeyDigest(key: key)
        guard var entry = try readEntry(key, digest: digest) else {
            core.accessLog.recordMiss()
            return nil
        }
        let now = Date()
        recordHit(IndexRowKey(entry.metadata, digest: digest), at: now)
        entry.metadata.lastAccess = now
        return entry
    }

    /// Records a read of `digest` for LRU order and the hit counter (and of `source`'s, for a
    /// derived entry), waking the writer when enough are buffered (``ReadPersistenceSchedule``
    /// says when). A read-only store records nothing: nothing could persist it.
    private func recordHit(_ row: IndexRowKey, source: IndexRowKey? = nil, at now: Date) {
        guard !core.isReadOnly else { return }
        let milliseconds = now.millisecondsSince1970
        if let source { core.accessLog.recordAccess(source, at: milliseconds) }
        let logged = core.accessLog.recordHit(row, at: milliseconds)
        if ReadPersistenceSchedule.wakesWriter(
            waiting: logged.waiting, isNew: logged.isNew, threshold: core.configuration.accessFlushThreshold)
        {
            core.writer.wake()
        }
    }

    /// The entry for `key`, bytes and metadata, or nil, without counting as a read.
    ///
    /// Neither the entry's last access (so its place in eviction order) nor the hit and miss
    /// counters move, and the metadata carries the last access recorded so far, as
    /// ``metadata(for:)`` does. For tools that look at a cache without changing it, such as an
    /// export. The bytes are checked as ``get(_:)`` checks them.
    public func peek(_ key: String) throws -> CachedEntry? {
        try peekReportingDamage(key).entry
    }

    /// What ``peek(_:)`` finds for `key`, telling an entry whose bytes are damaged (and so not
    /// returned) from an absent one: for tools that must name what they could not read, such as
    /// an export.
    public func peekReportingDamage(_ key: String) throws -> StoredEntryLookup {
        try checkOpen()
        let digest = KeyDigest(key: key)
        var damaged = false
        let read = try core.blobs.read { txn in try readEntry(key, digest: digest, in: txn, damaged: &damaged) }
        removeIfDamaged(damaged, key, digest)
        guard var entry = read else { return damaged ? .damaged : .absent }
        if let lastAccess = try lastAccess(IndexRowKey(entry.metadata, digest: digest)) {
            entry.metadata.lastAccess = lastAccess
        }
        return .found(entry)
    }

    /// The metadata for `key` without reading the bytes, or nil. Does not count as a read.
    public func metadata(for key: String) throws -> EntryMetadata? {
        try checkOpen()
        let digest = KeyDigest(key: key)
        guard
            var metadata = try core.blobs.read({ txn in
                try txn.record(of: digest, core.blobs.databases).flatMap { EntryRecord.decode($0.bytes) }
            }), metadata.key == key
        else { return nil }
        if let lastAccess = try lastAccess(IndexRowKey(metadata, digest: digest)) { metadata.lastAccess = lastAccess }
        return metadata
    }

    /// Whether an entry for `key` exists. Does not count as a read.
    public func contains(_ key: String) throws -> Bool {
        try checkOpen()
        let digest = KeyDigest(key: key)
        return try core.blobs.read { txn in
            try txn.record(of: digest, core.blobs.databases).map { EntryRecord.isRecord($0.bytes, of: key) } ?? false
        }
    }

    /// The entry's record and blob, read in one LMDB transaction. A record whose blob is missing,
    /// of another length or refuted by its checksum reads as nil and is removed in the background.
    private func readEntry(_ key: String, digest: KeyDigest) throws -> CachedEntry? {
        var damaged = false
        let entry = try core.blobs.read { txn in try readEntry(key, digest: digest, in: txn, damaged: &damaged) }
        removeIfDamaged(damaged, key, digest)
        return entry
    }

    /// Counts and logs a read refused as `damaged`, and has the writer remove the entry at
    /// `digest` (checked again there, under the writer's lock). A read-only store keeps it: the
    /// read is a miss all the same.
    private func removeIfDamaged(_ damaged: Bool, _ key: String, _ digest: KeyDigest) {
        guard damaged else { return }
        core.accessLog.recordDamagedRead()
        core.logger.warning(
            "Cache entry is damaged on disk (missing bytes, wrong length or checksum); answered with a miss",
            metadata: ["key": "\(key)", "removing": "\(!core.isReadOnly)"])
        if !core.isReadOnly { core.writer.submit(.removeIfDamaged([digest])) { _ in } }
    }

    private func readEntry(_ key: String, digest: KeyDigest, in txn: LMDBTransaction, damaged: inout Bool) throws
        -> CachedEntry?
    {
        do {
            return try readWholeEntry(key, digest: digest, in: txn, damaged: &damaged)
        } catch let error as StorageError where error.meansDamagedPages {
            // A damaged page on the way to the entry (LMDB said so, or faulted and the guard
            // caught it): the entry is as unreadable as one whose checksum fails.
            damaged = true
            return nil
        }
    }

    private func readWholeEntry(_ key: String, digest: KeyDigest, in txn: LMDBTransaction, damaged: inout Bool) throws
        -> CachedEntry?
    {
        let databases = core.blobs.databases
        guard let stored = try txn.record(of: digest, databases) else { return nil }
        let record = stored.bytes
        guard EntryRecord.isRecord(record, of: key) else { return nil }
        guard let location = BlobLocation(record: record), let metadata = EntryRecord.decode(record, knownKey: key) else {
            damaged = true
            return nil
        }
        let data = try txn.withBytes(of: stored, at: location, databases) { blob -> Data? in
            guard let blob, blob.count == metadata.byteCount else { return nil }
            // Every read, not only `verify`: a disk returns bad sectors without an error, and a
            // store read without LMDB's locks may see pages a writer elsewhere is reusing (so
            // there every read hashes). Either way the bytes are not the entry's; the writer tells
            // the two apart when it checks again.
            let whole =
                core.blobs.readsWithoutLocks
                ? XXHash64.hash(blob) == metadata.checksum
                : verifiedBlobs.matches(blob, checksum: metadata.checksum, digest: digest, location: location)
            return whole ? Data(blob) : nil
        }
        guard let data else {
            damaged = true
            return nil
        }
        return CachedEntry(data: data, metadata: metadata)
    }

    /// The entry for `key` derived from `sourceKey`, with the source's metadata (not its bytes),
    /// read in one transaction; nil unless both are stored and the entry was derived from the
    /// source's current bytes.
    ///
    /// Counts as one read, of both: a source whose derived entries are in use keeps its place in
    /// eviction order (evicting it would take them along) although its own bytes are not read.
    public func get(_ key: String, derivedFrom sourceKey: String) throws -> (entry: CachedEntry, source: EntryMetadata)? {
        try checkOpen()
        let digest = KeyDigest(key: key)
        let sourceDigest = KeyDigest(key: sourceKey)
        var damaged = false
        let found = try core.blobs.read { txn -> (entry: CachedEntry, source: EntryMetadata)? in
            // An unreadable source reads as absent: the derived entry is not served without it.
            let sourceRecord = try txn.readable { try txn.record(of: sourceDigest, core.blobs.databases) }?.bytes
            guard let source = sourceRecord.flatMap(EntryRecord.decode), source.key == sourceKey,
                let entry = try readEntry(key, digest: digest, in: txn, damaged: &damaged),
                entry.metadata.source == EntrySource(key: sourceKey, checksum: source.checksum)
            else { return nil }
            return (entry, source)
        }
        removeIfDamaged(damaged, key, digest)
        guard var found else {
            core.accessLog.recordMiss()
            return nil
        }
        let now = Date()
        recordHit(
            IndexRowKey(found.entry.metadata, digest: digest), source: IndexRowKey(found.source, digest: sourceDigest),
            at: now)
        found.entry.metadata.lastAccess = now
        return found
    }

    /// The last access recorded so far: one this process has not flushed yet, else the index's.
    private func lastAccess(_ row: IndexRowKey) throws -> Date? {
        if let pending = core.accessLog.pendingAccess(row) { return Date(millisecondsSince1970: pending) }
        return try queryIndex { connection in
            let statement = try connection.prepare("SELECT last_access FROM entries WHERE stored_at = ? AND digest = ?")
            try statement.bind(1, row.storedAt)
            try row.digest.withBytes { try statement.bind(2, blob: $0) }
            return try statement.step() ? Date(millisecondsSince1970: statement.int64(0)) : nil
        }
    }
}
