import CLMDB
import Foundation

/// Applies entry operations inside one LMDB write transaction and remembers what they touched,
/// so the caller can journal those digests, and the index rows they left behind, in the same
/// transaction.
struct ChangeSet {
    let txn: LMDBTransaction
    let databases: BlobStore.Databases
    private(set) var touched: [JournalItem] = []
    private var positions: [KeyDigest: Int] = [:]
    /// Entries removed because what they were derived from was removed or replaced, and their bytes.
    private(set) var derivedRemoved = (entries: 0, bytes: 0)
    /// Whether the store holds any derived entry, asked once per transaction: without one, puts
    /// and deletions skip reading the previous record and searching for dependents (the hot
    /// path of a store that keeps no thumbnails, and of a mass eviction).
    private var linksExist: Bool?
    /// The next number in the blob log, read from its last key at the first put (see ``BlobLocation``).
    private var nextBlobNumber: UInt64?
    /// Whether a put wrote to the blob log: the store's format then says so (see ``StoreInfo``).
    private(set) var wroteToBlobLog = false

    init(txn: LMDBTransaction, databases: BlobStore.Databases) {
        self.txn = txn
        self.databases = databases
    }

    mutating func apply(_ operation: WriteOperation) throws -> WriteOutcome {
        switch operation {
        case let .put(entries):
            // Checked before anything is written: a put is refused whole or written whole.
            if databases.dependents == nil, let derived = entries.first(where: { $0.source != nil }) {
                return .derivedEntriesUnavailable(key: derived.key)
            }
            for entry in entries {
                if let source = entry.source,
                    !entries.contains(where: { $0.key == source.key && $0.checksum == source.checksum }), try !holds(source)
                {
                    return .sourceChanged(key: entry.key, source: source.key)
                }
            }
            for entry in entries { try put(entry) }
            return .done
        case let .update(key, attributes):
            return .found(try update(key: key, attributes: attributes))
        case let .remove(keys):
            let before = derivedRemoved
            var entries = 0
            var bytes = 0
            for key in keys {
                let digest = KeyDigest(key: key)
                guard try storedKey(digest) == key, let size = try delete(digest) else { continue }
                entries += 1
                bytes += size
            }
            return .removed(
                entries: entries + derivedRemoved.entries - before.entries, bytes: bytes + derivedRemoved.bytes - before.bytes)
        case let .removeIfDamaged(digests):
            let before = derivedRemoved
            var entries = 0
            var bytes = 0
            for digest in digests where try isDamaged(digest) {
                entries += 1
                bytes += try delete(digest) ?? 0
            }
            return .removed(
                entries: entries + derivedRemoved.entries - before.entries, bytes: bytes + derivedRemoved.bytes - before.bytes)
        case let .removeOrphanedLogBlobs(numbers):
            for number in numbers { try txn.deleteBlob(at: .log(number), databases) }
            return .removed(entries: 0, bytes: 0)
        case .removeAll, .evict, .flush, .rebuildIndex, .compact:
            return .done
        }
    }

    private mutating func put(_ entry: PreparedPut) throws {
        // The row the entry had in the index stays behind when the new record is stored at
        // another time (see `IndexRowKey`): the journal names it for the replay to delete.
        let previousRecord = try entry.digest.withBytes { try txn.get(databases.records, key: $0) }
        let previousRow = previousRecord.flatMap { IndexRowKey(record: $0, digest: entry.digest) }
        // Read before anything is written: LMDB's buffers die with the transaction's next write.
        let previousBlob = previousRecord.map { BlobLocation(record: $0, digest: entry.digest) }
        let newRow = entry.record.withUnsafeBytes { IndexRowKey(record: $0, digest: entry.digest) }
        if try hasLinks(), let previous = previousRecord.flatMap(EntryRecord.decode) {
            try unlink(previous, digest: entry.digest)
            // Other bytes under the key: what was derived from the old ones goes.
            if previous.checksum != entry.checksum || previous.byteCount != entry.data.count {
                try deleteDependents(of: entry.digest)
            }
        }
        if let source = entry.source, let dependents = databases.dependents {  // present: checked in `apply`
            try Self.link(source: KeyDigest(key: source.key), dependent: entry.digest) { link in
                try txn.put(dependents, key: link, value: UnsafeRawBufferPointer(start: nil, count: 0))
            }
            linksExist = true
        }
        var record = entry.record
        let blob: BlobLocation
        if let log = databases.blobLog {
            let number = try takeBlobNumber(log)
            blob = .log(number)
            record = EntryRecord.naming(blobNumber: number, in: record)
            try blob.withKey { key in
                try entry.data.withUnsafeBytes { try txn.put(log, key: key, value: $0, flags: UInt32(MDB_APPEND)) }
            }
            wroteToBlobLog = true
        } else {
            blob = .digest(entry.digest)
            try entry.digest.withBytes { key in
                try entry.data.withUnsafeBytes { try txn.put(databases.blobs, key: key, value: $0) }
            }
        }
        try entry.digest.withBytes { key in
            try record.withUnsafeBytes { try txn.put(databases.records, key: key, value: $0) }
        }
        if let previousBlob, previousBlob != blob { try txn.deleteBlob(at: previousBlob, databases) }
        touch(entry.digest, leaving: previousRow == newRow ? nil : previousRow)
    }

    private mutating func update(key: String, attributes: EntryAttributes) throws -> Bool {
        let digest = KeyDigest(key: key)
        let record = try digest.withBytes { try txn.get(databases.records, key: $0) }
        guard let record, var metadata = EntryRecord.decode(record), metadata.key == key else { return false }
        metadata.attributes = attributes
        var encoded = EntryRecord.encode(metadata)
        if let number = EntryRecord.blobNumber(in: record) { encoded = EntryRecord.naming(blobNumber: number, in: encoded) }
        try digest.withBytes { digestBytes in
            try encoded.withUnsafeBytes { try txn.put(databases.records, key: digestBytes, value: $0) }
        }
        touch(digest)
        return true
    }

    /// Deletes record and blob, and every entry derived from them; returns the record's byte
    /// count when there was an entry (derived entries removed with it are journaled, not counted).
    mutating func delete(_ digest: KeyDigest) throws -> Int? {
        let linked = try hasLinks()
        var row: IndexRowKey?
        let size: Int? = try digest.withBytes { key in
            let record = try txn.get(databases.records, key: key)
            row = record.flatMap { IndexRowKey(record: $0, digest: digest) }
            let blob = BlobLocation(record: record, digest: digest)
            let previous = record.flatMap(EntryRecord.decode)
            if linked, let previous { try unlink(previous, digest: digest) }
            let size = previous?.byteCount ?? (record == nil ? nil : 0)
            let hadRecord = try txn.delete(databases.records, key: key)
            let hadBlob = try txn.deleteBlob(at: blob, databases)
            return hadRecord || hadBlob ? (size ?? 0) : nil
        }
        if size != nil { touch(digest, leaving: row) }
        if linked { try deleteDependents(of: digest) }
        return size
    }

    // MARK: Derived entries

    /// Whether any entry is linked to a source (see `linksExist`).
    private mutating func hasLinks() throws -> Bool {
        if let linksExist { return linksExist }
        let exists = try databases.dependents.map { try txn.count($0) > 0 } ?? false
        linksExist = exists
        return exists
    }

    /// Whether `source` is stored with the bytes its checksum names.
    private func holds(_ source: EntrySource) throws -> Bool {
        guard let stored = try storedMetadata(KeyDigest(key: source.key)) else { return false }
        return stored.key == source.key && stored.checksum == source.checksum
    }

    /// Deletes every entry derived from `digest` (and, through `delete`, what was derived from those).
    private mutating func deleteDependents(of digest: KeyDigest) throws {
        guard let dependents = databases.dependents else { return }
        var found: [KeyDigest] = []
        try digest.withBytes { prefix in
            try txn.forEach(dependents, from: prefix) { key, _ in
                guard key.count == 2 * KeyDigest.byteCount, key.starts(with: prefix) else { return false }
                if let dependent = KeyDigest(bytes: UnsafeRawBufferPointer(rebasing: key[KeyDigest.byteCount...])) {
                    found.append(dependent)
                }
                return true
            }
        }
        for dependent in found {
            try Self.link(source: digest, dependent: dependent) { _ = try txn.delete(dependents, key: $0) }
            if let size = try delete(dependent) {
                derivedRemoved.entries += 1
                derivedRemoved.bytes += size
            }
        }
    }

    /// Removes the link from `metadata`'s source to the entry at `digest`, if it has a source.
    private func unlink(_ metadata: EntryMetadata, digest: KeyDigest) throws {
        guard let source = metadata.source, let dependents = databases.dependents else { return }
        try Self.link(source: KeyDigest(key: source.key), dependent: digest) { _ = try txn.delete(dependents, key: $0) }
    }

    /// The key under which `dependents` records that `dependent` was derived from `source`.
    private static func link<Result>(
        source: KeyDigest, dependent: KeyDigest, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        let bytes = source.bytes + dependent.bytes
        return try bytes.withUnsafeBytes { try body($0) }
    }

    private func storedMetadata(_ digest: KeyDigest) throws -> EntryMetadata? {
        try digest.withBytes { try txn.get(databases.records, key: $0) }.flatMap(EntryRecord.decode)
    }

    private func storedKey(_ digest: KeyDigest) throws -> String? {
        let record = try digest.withBytes { try txn.get(databases.records, key: $0) }
        return record.flatMap(EntryRecord.key(in:)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// A record that does not decode, a missing blob, or bytes that do not match the record.
    private func isDamaged(_ digest: KeyDigest) throws -> Bool {
        try digest.withBytes { key in
            let record = try txn.get(databases.records, key: key)
            let location = BlobLocation(record: record, digest: digest)
            // A log blob this process cannot see (the log was created after it opened) is not damage.
            guard location.database(databases) != nil else { return false }
            let blob = try txn.blob(at: location, databases)
            guard let record else { return blob != nil }
            guard let metadata = EntryRecord.decode(record), KeyDigest(key: metadata.key) == digest, let blob else {
                return true
            }
            return blob.count != metadata.byteCount || XXHash64.hash(blob) != metadata.checksum
        }
    }

    /// The next blob log number: one past the log's last key, then counting within the transaction.
    private mutating func takeBlobNumber(_ log: MDB_dbi) throws -> UInt64 {
        let number = try nextBlobNumber ?? ((try txn.lastKey(log)).flatMap(BlobLocation.number(fromKey:)) ?? 0) + 1
        nextBlobNumber = number + 1
        return number
    }

    /// Journals `digest`, and the index row `left` behind by a deletion or replacement.
    private mutating func touch(_ digest: KeyDigest, leaving left: IndexRowKey? = nil) {
        let position: Int
        if let known = positions[digest] {
            position = known
        } else {
            position = touched.count
            positions[digest] = position
            touched.append(JournalItem(digest: digest))
        }
        if let left, !touched[position].rowsLeft.contains(left.storedAt) { touched[position].rowsLeft.append(left.storedAt) }
    }
}
