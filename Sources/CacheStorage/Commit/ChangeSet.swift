import CLMDB
import Foundation

/// Applies entry operations inside one LMDB write transaction and remembers what they touched,
/// so the caller can journal those digests, and the index rows they left behind, in the same
/// transaction.
struct ChangeSet {
    let txn: LMDBTransaction
    let databases: BlobStore.Databases
    /// What the changes touched, for the caller to journal (see ``JournalTouches``).
    private var journal: JournalTouches
    /// The journal items the changes touched, in order.
    var touched: [JournalItem] { journal.items }
    /// Entries removed because what they were derived from was removed or replaced, and their bytes.
    private(set) var derivedRemoved = (entries: 0, bytes: 0)
    /// Whether the store holds any derived entry, asked once per transaction: without one, puts
    /// and deletions skip reading the previous record and searching for dependents (the hot
    /// path of a store that keeps no thumbnails, and of a mass eviction).
    private var linksExist: Bool?
    /// The numbers this transaction's puts take, and the tail pairs its deletions drop (see
    /// ``BlobNumbers``): the caller raises the floor past those before it writes the store info.
    private(set) var numbers: BlobNumbers
    /// The numbers this transaction's puts appended to the pointer tail, by digest: the tail's
    /// index holds only what was committed (see ``PointerTailIndex``).
    private var ownTail: [KeyDigest: UInt64] = [:]
    /// For each digest whose last change here was a put, the record that put prepared (before its
    /// blob number was added) and that number: what ``IndexPrefill`` predicted.
    private(set) var putRecords: [KeyDigest: PutRecord] = [:]
    /// Entries deleted with `keepingPointer` whose pointers stayed in `records` (see ``LeftPointer``).
    private(set) var keptPointers: [LeftPointer] = []
    /// Cursors on the blob and record logs, opened at the first deletion: an eviction deletes the
    /// oldest entries, from the logs' fronts, and finds most keys on the page the last one was on.
    private var logCursors: (blobs: LMDBCursor, records: LMDBCursor)?

    /// A put's prepared record and the blob log number it was given.
    struct PutRecord: Equatable {
        let record: [UInt8]
        let blobNumber: UInt64
    }

    /// Whether puts append their pointers to the pointer tail rather than write them into
    /// `records` (see ``PointerTailIndex``).
    private let pointersToTail: Bool

    init(txn: LMDBTransaction, databases: BlobStore.Databases, mergesTouches: Bool = true, pointersToTail: Bool = false) {
        self.txn = txn
        self.databases = databases
        numbers = BlobNumbers(txn, databases)
        journal = JournalTouches(merges: mergesTouches)
        self.pointersToTail = pointersToTail
    }

    mutating func apply(_ operation: WriteOperation) throws -> WriteOutcome {
        switch operation {
        case let .put(entries):
            // Checked before anything is written: a put is refused whole or written whole.
            for entry in entries {
                if let source = entry.source,
                    !entries.contains(where: { $0.key == source.key && $0.checksum == source.checksum }), try !holds(source)
                {
                    return .sourceChanged(key: entry.key, source: source.key)
                }
            }
            for entry in entries { try put(entry) }
            return .done
        case let .update(key, attributes, checksum):
            return .attributes(try update(key: key, attributes: attributes, ifChecksum: checksum))
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
            for number in numbers {
                try txn.deleteBlob(at: .log(number), databases)
                try txn.deleteOrphanedLogRecord(number, databases)
                try self.numbers.dropTailPair(number)
            }
            return .removed(entries: 0, bytes: 0)
        case .removeAll, .evict, .flush, .rebuildIndex, .compact:
            return .done
        }
    }

    private mutating func put(_ entry: PreparedPut) throws {
        // The row the entry had in the index stays behind when the new record is stored at
        // another time (see `IndexRowKey`): the journal names it for the replay to delete.
        let previous = try storedRecord(entry.digest)
        let previousRecord = previous?.bytes
        let previousRow = previousRecord.flatMap { IndexRowKey(record: $0, digest: entry.digest) }
        // Read before anything is written: LMDB's buffers die with the transaction's next write.
        let previousBlob = BlobLocation(record: previousRecord)
        let newRow = entry.record.withUnsafeBytes { IndexRowKey(record: $0, digest: entry.digest) }
        if try hasLinks(), let previous = previousRecord.flatMap(EntryRecord.decode) {
            try unlink(previous, digest: entry.digest)
            // Other bytes under the key: what was derived from the old ones goes.
            if previous.checksum != entry.checksum || previous.byteCount != entry.data.count {
                try deleteDependents(of: entry.digest)
            }
        }
        if let source = entry.source {
            try Self.link(source: KeyDigest(key: source.key), dependent: entry.digest) { link in
                try txn.put(databases.dependents, key: link, value: UnsafeRawBufferPointer(start: nil, count: 0))
            }
            linksExist = true
        }
        var record = entry.record
        let blob: BlobLocation
        let number = try numbers.take()
        // Small bytes follow the record in the record log (see `BlobLocation`).
        let bytesFollow = entry.data.count <= BlobLocation.withRecordLimit
        if bytesFollow {
            blob = .withRecord(number)
            record = EntryRecord.naming(blobNumber: number, in: record, bytesFollow: true)
        } else {
            blob = .log(number)
            record = EntryRecord.naming(blobNumber: number, in: record)
            try blob.withKey { key in
                try entry.data.withUnsafeBytes {
                    try txn.put(databases.blobLog, key: key, value: $0, flags: UInt32(MDB_APPEND))
                }
            }
        }
        let inTail = try entry.data.withUnsafeBytes { data in
            try txn.putRecord(
                record, of: entry.digest, number: number, appending: true,
                followedBy: bytesFollow ? data : nil, toTail: pointersToTail, databases)
        }
        if inTail { ownTail[entry.digest] = number }
        // The old record, logged under another number: the pointer now names the new one.
        if let previous = previous?.number, previous != number {
            try txn.deleteRecord(of: entry.digest, at: previous, keepingPointer: true, databases)
            try numbers.dropTailPair(previous)
        }
        if let previousBlob, previousBlob != blob { try txn.deleteBlob(at: previousBlob, databases) }
        journal.touch(entry.digest, leaving: previousRow == newRow ? nil : previousRow)
        putRecords[entry.digest] = PutRecord(record: entry.record, blobNumber: number)
    }

    private mutating func update(key: String, attributes: EntryAttributes, ifChecksum checksum: UInt64?) throws
        -> AttributeUpdate
    {
        let digest = KeyDigest(key: key)
        guard let stored = try storedRecord(digest), var metadata = EntryRecord.decode(stored.bytes),
            metadata.key == key
        else { return .missing }
        guard checksum.map({ $0 == metadata.checksum }) ?? true else { return .bytesChanged }
        metadata.attributes = attributes
        var encoded = EntryRecord.encode(metadata)
        // Copied: LMDB's buffer dies with the write that replaces it.
        let followingBytes = stored.followingBytes.map { Array($0) }
        if let number = EntryRecord.blobNumber(in: stored.bytes) {
            encoded = EntryRecord.naming(blobNumber: number, in: encoded, bytesFollow: followingBytes != nil)
        }
        if let followingBytes {
            try followingBytes.withUnsafeBytes {
                try txn.replaceRecord(encoded, of: digest, at: stored.number, followedBy: $0, databases)
            }
        } else {
            try txn.replaceRecord(encoded, of: digest, at: stored.number, databases)
        }
        putRecords[digest] = nil
        journal.touch(digest)
        return .updated
    }

    /// Deletes record and blob, and every entry derived from them; returns the record's byte
    /// count when there was an entry (derived entries removed with it are journaled, not counted).
    /// With `keepingPointer`, a logged record's pointer stays in `records` and is listed in
    /// `keptPointers`: the transaction must have raised the store's number floor past it (see
    /// ``BlobNumbers/raiseFloorPastLogs(_:_:_:)``). `blobNumber`, the number the entry's index row names, finds
    /// the record without a lookup by digest when it still names this digest's record.
    mutating func delete(_ digest: KeyDigest, keepingPointer: Bool = false, blobNumber: UInt64? = nil) throws -> Int? {
        // Empty in an eviction's transactions, which only delete: no hashing per victim then.
        if !putRecords.isEmpty { putRecords[digest] = nil }
        let linked = try hasLinks()
        let cursors = try openLogCursors()
        // By the number the victim's index row names, when it still names this digest's record.
        let logged = try blobNumber.flatMap { number in
            try txn.loggedRecord(of: digest, number: number, cursor: cursors.records)
        }
        let stored = try logged ?? storedRecord(digest)
        let record = stored?.bytes
        let row = record.flatMap { IndexRowKey(record: $0, digest: digest) }
        let blob = BlobLocation(record: record)
        if linked, let previous = record.flatMap(EntryRecord.decode) { try unlink(previous, digest: digest) }
        // A record too damaged to give its size still counts as an entry.
        var size = record.map { EntryRecord.byteCount(in: $0) ?? 0 }
        if let stored {
            try txn.deleteRecord(
                of: digest, at: stored.number, keepingPointer: keepingPointer, logCursor: cursors.records, databases)
            try numbers.dropTailPair(stored.number)
            if keepingPointer { keptPointers.append(LeftPointer(digest: digest, number: stored.number)) }
        } else {
            // Nothing, or a stale pointer: that goes, and is not an entry.
            _ = try digest.withBytes { try txn.delete(databases.records, key: $0) }
        }
        if let blob, try txn.deleteBlob(at: blob, logCursor: cursors.blobs, databases) { size = size ?? 0 }
        if size != nil { journal.touch(digest, leaving: row) }
        if linked { try deleteDependents(of: digest) }
        return size
    }

    private mutating func openLogCursors() throws -> (blobs: LMDBCursor, records: LMDBCursor) {
        if let logCursors { return logCursors }
        let opened = (blobs: try LMDBCursor(txn, databases.blobLog), records: try LMDBCursor(txn, databases.recordLog))
        logCursors = opened
        return opened
    }

    // MARK: Derived entries

    /// Whether any entry is linked to a source (see `linksExist`).
    private mutating func hasLinks() throws -> Bool {
        if let linksExist { return linksExist }
        let exists = try txn.count(databases.dependents) > 0
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
        let dependents = databases.dependents
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
        guard let source = metadata.source else { return }
        try Self.link(source: KeyDigest(key: source.key), dependent: digest) {
            _ = try txn.delete(databases.dependents, key: $0)
        }
    }

    /// The key under which `dependents` records that `dependent` was derived from `source`.
    private static func link<Result>(
        source: KeyDigest, dependent: KeyDigest, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        let bytes = source.bytes + dependent.bytes
        return try bytes.withUnsafeBytes { try body($0) }
    }

    /// The entry at `digest`'s record: logged by a put of this transaction, or as committed.
    private func storedRecord(_ digest: KeyDigest) throws -> StoredRecord? {
        if !ownTail.isEmpty, let number = ownTail[digest],
            let record = try txn.loggedRecord(of: digest, number: number, databases)
        {
            return record
        }
        return try txn.record(of: digest, databases)
    }

    private func storedMetadata(_ digest: KeyDigest) throws -> EntryMetadata? {
        try storedRecord(digest).flatMap { EntryRecord.decode($0.bytes) }
    }

    private func storedKey(_ digest: KeyDigest) throws -> String? {
        let record = try storedRecord(digest)?.bytes
        return record.flatMap(EntryRecord.key(in:)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// A record that does not decode, a missing blob, or bytes that do not match the record.
    private func isDamaged(_ digest: KeyDigest) throws -> Bool {
        guard let stored = try storedRecord(digest) else { return false }
        guard let location = BlobLocation(record: stored.bytes), let metadata = EntryRecord.decode(stored.bytes),
            KeyDigest(key: metadata.key) == digest
        else {
            return true
        }
        return try txn.withBytes(of: stored, at: location, databases) { blob in
            guard let blob else { return true }
            return blob.count != metadata.byteCount || XXHash64.hash(blob) != metadata.checksum
        }
    }
}
