import CLMDB

/// Where an entry's record lives: in the record log under its blob's number, reached from `records`
/// (or the pointer tail, see ``PointerTailIndex``) by that number.
///
/// `records` is keyed by digest, a hash: a record stored there is a random leaf of a large tree,
/// so a put writes one such leaf and a mass eviction, which deletes the oldest entries, rewrites
/// nearly one leaf per entry. The log keys records by number in the order they were written (the
/// blob's number, see ``BlobLocation``): puts append to its last pages and an eviction deletes
/// from its front. `records` then holds only the 8-byte number, a tree five times smaller.
///
/// A mass eviction deletes the logged record and blob but may leave the number behind
/// (`keepingPointer`, ``LeftPointer``), to delete in digest order once the eviction is done: a
/// number whose logged record is gone, or now belongs to another digest (see ``BlobNumbers``
/// for when a number is given again), is a *stale pointer* and reads
/// as no entry, and so does a `records` value that is no number (damage: nothing writes one).
enum RecordLocation {
    /// A logged value is the entry's digest then its record: a stale pointer is told apart by it.
    static let digestPrefixBytes = KeyDigest.byteCount

    /// The number the `records` value `value` names; nil for a value that is not 8 bytes.
    static func number(inRecordsValue value: UnsafeRawBufferPointer) -> UInt64? {
        BlobLocation.number(fromKey: value)
    }
}

/// An entry's record and the number it is logged under, valid until the transaction's next write.
struct StoredRecord {
    let bytes: UnsafeRawBufferPointer
    let number: UInt64
    /// The entry's bytes, when they follow the record in its logged value (see ``BlobLocation``).
    var followingBytes: UnsafeRawBufferPointer? = nil
}

extension StoredRecord {
    /// The record in `logged`, the record log's value under `number`, when it is `digest`'s: the
    /// digest, the record, and the entry's bytes when they follow it.
    init?(logged: UnsafeRawBufferPointer, number: UInt64, digest: KeyDigest) {
        let prefix = RecordLocation.digestPrefixBytes
        guard logged.count > prefix, KeyDigest(bytes: UnsafeRawBufferPointer(rebasing: logged[..<prefix])) == digest
        else { return nil }
        let (record, bytes) = EntryRecord.split(logged: UnsafeRawBufferPointer(rebasing: logged[prefix...]))
        self.init(bytes: record, number: number, followingBytes: bytes)
    }
}

extension LMDBTransaction {
    /// The record of the entry at `digest`, or nil (no entry, or a stale pointer).
    func record(of digest: KeyDigest, _ databases: BlobStore.Databases) throws -> StoredRecord? {
        if let found = try databases.tailIndex.firstMatch(of: digest, in: self, tail: databases.pointerTail, { number in
            try loggedRecord(of: digest, number: number, databases)
        }) {
            return found
        }
        guard let value = try digest.withBytes({ try get(databases.records, key: $0) }) else { return nil }
        return try resolve(value, digest: digest, databases)
    }

    /// The record logged under `number` when it is `digest`'s; nil otherwise.
    func loggedRecord(of digest: KeyDigest, number: UInt64, _ databases: BlobStore.Databases) throws -> StoredRecord? {
        guard let logged = try BlobLocation.log(number).withKey({ try get(databases.recordLog, key: $0) }) else {
            return nil
        }
        return StoredRecord(logged: logged, number: number, digest: digest)
    }

    /// The record a `records` value names.
    private func resolve(_ value: UnsafeRawBufferPointer, digest: KeyDigest, _ databases: BlobStore.Databases) throws
        -> StoredRecord?
    {
        guard let number = RecordLocation.number(inRecordsValue: value) else { return nil }
        return try loggedRecord(of: digest, number: number, databases)
    }

    /// The record logged under `number` when it is `digest`'s, found with `cursor`, a cursor on
    /// the record log: a logged record is filed under its entry's digest, and put and removal
    /// delete an entry's logged record with its pointer or before writing another, so the one
    /// found is the entry's current record (see ``EvictionVictim``). Nil otherwise.
    func loggedRecord(of digest: KeyDigest, number: UInt64, cursor: LMDBCursor) throws -> StoredRecord? {
        guard let logged = try BlobLocation.log(number).withKey({ try cursor.find($0) }) else { return nil }
        return StoredRecord(logged: logged, number: number, digest: digest)
    }

    /// Stores `record` as the entry at `digest`'s in the record log under `number` (`appending`:
    /// the number is past every key there), followed by `followingBytes` when the record says the
    /// entry's bytes follow it, its pointer appended to the pointer tail when `toTail` (see
    /// ``PointerTailIndex``), else written into `records`. Returns whether the pointer went to the tail.
    @discardableResult
    func putRecord(
        _ record: [UInt8], of digest: KeyDigest, number: UInt64, appending: Bool,
        followedBy followingBytes: UnsafeRawBufferPointer? = nil, toTail: Bool = false, _ databases: BlobStore.Databases
    ) throws -> Bool {
        try replaceRecord(record, of: digest, at: number, followedBy: followingBytes, databases, appending: appending)
        if toTail {
            try appendToTail(number, digest: digest, databases.pointerTail)
            return true
        }
        try BlobLocation.log(number).withKey { pointer in try digest.withBytes { try put(databases.records, key: $0, value: pointer) } }
        return false
    }

    /// Rewrites the entry at `digest`'s record, logged under `number`, leaving any pointer to it as
    /// it is; followed by `followingBytes` (see ``BlobLocation``).
    func replaceRecord(
        _ record: [UInt8], of digest: KeyDigest, at number: UInt64,
        followedBy followingBytes: UnsafeRawBufferPointer? = nil, _ databases: BlobStore.Databases,
        appending: Bool = false
    ) throws {
        let prefix = RecordLocation.digestPrefixBytes
        let count = prefix + record.count + (followingBytes?.count ?? 0)
        // Written in place (`MDB_RESERVE`): no copy of the bytes in between.
        try BlobLocation.log(number).withKey { key in
            try put(databases.recordLog, key: key, reserving: count, flags: appending ? UInt32(MDB_APPEND) : 0) { value in
                digest.withBytes { value.copyMemory(from: $0) }
                record.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: value[prefix...]).copyMemory(from: $0) }
                if let followingBytes, followingBytes.count > 0 {
                    UnsafeMutableRawBufferPointer(rebasing: value[(prefix + record.count)...]).copyMemory(from: followingBytes)
                }
            }
        }
    }

    /// Deletes the logged record under `number` (for `verify`'s repair: no pointer names it).
    func deleteOrphanedLogRecord(_ number: UInt64, _ databases: BlobStore.Databases) throws {
        _ = try BlobLocation.log(number).withKey { try delete(databases.recordLog, key: $0) }
    }

    /// Deletes the entry at `digest`'s record, logged under `number`; its pointer stays when
    /// `keepingPointer` (see ``RecordLocation``). `logCursor`, a cursor on the record log, deletes
    /// the record through it (see ``LMDBCursor``).
    func deleteRecord(
        of digest: KeyDigest, at number: UInt64, keepingPointer: Bool, logCursor: LMDBCursor? = nil,
        _ databases: BlobStore.Databases
    ) throws {
        try BlobLocation.log(number).withKey { key in
            _ = try logCursor.map { try $0.delete(key) } ?? delete(databases.recordLog, key: key)
        }
        if keepingPointer { return }
        try digest.withBytes { _ = try delete(databases.records, key: $0) }
    }

    /// Walks every entry until `body` returns false: its digest and record. Those whose pointers
    /// are in the tail (see ``PointerTailIndex``) come first, in the order they were logged; then those
    /// of `records`, in digest order. Stale pointers, and `records` values that are no number, are
    /// passed over, and so are damaged stretches of either database (see ``DamagedKeyRange``):
    /// returns how many.
    @discardableResult
    func forEachRecord(
        _ databases: BlobStore.Databases, _ body: (KeyDigest, StoredRecord) throws -> Bool
    ) throws -> Int {
        // A digest whose record the tail names is taken from there, whatever `records` holds.
        var fromTail = Set<KeyDigest>()
        var stopped = false
        var skipped = try forEachReadable(databases.pointerTail) { key, value in
            guard let number = BlobLocation.number(fromKey: key), let digest = KeyDigest(bytes: value),
                let record = try readable({ try loggedRecord(of: digest, number: number, databases) })
            else { return true }
            fromTail.insert(digest)
            stopped = try !body(digest, record)
            return !stopped
        }
        if stopped { return skipped }
        skipped += try forEachReadable(databases.records) { key, value in
            guard let digest = KeyDigest(bytes: key), !fromTail.contains(digest) else { return true }
            guard let record = try readable({ try resolve(value, digest: digest, databases) }) else { return true }
            return try body(digest, record)
        }
        return skipped
    }
}
