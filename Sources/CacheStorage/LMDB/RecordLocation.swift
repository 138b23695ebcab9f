import CLMDB

/// Where an entry's record lives: in the record log under its blob's number, reached from `records`
/// by that number, or, for a record from before the log, in `records` itself under the digest.
///
/// `records` is keyed by digest, a hash: a record stored there is a random leaf of a large tree,
/// so a put writes one such leaf and a mass eviction, which deletes the oldest entries, rewrites
/// nearly one leaf per entry. The log keys records by number in the order they were written (the
/// blob's number, see ``BlobLocation``): puts append to its last pages and an eviction deletes
/// from its front. `records` then holds only the 8-byte number, a tree five times smaller.
///
/// A mass eviction deletes the logged record and blob but may leave the number behind
/// (`keepingPointer`, ``LeftPointer``), to delete in digest order once the eviction is done: a
/// number whose logged record is gone, or now belongs to another digest (a number deleted from
/// the logs' end is given again, unless an eviction deleted it, and a store of format 4 or
/// before may hold one given again so), is a *stale pointer* and reads as no entry.
enum RecordLocation: Equatable {
    case log(UInt64)
    case inline

    /// A logged value is the entry's digest then its record: a stale pointer is told apart by it.
    static let digestPrefixBytes = KeyDigest.byteCount

    /// Where the record of the `records` value `value` is: a value of 8 bytes is a number (a
    /// record is always longer).
    init(recordsValue value: UnsafeRawBufferPointer) {
        if let number = BlobLocation.number(fromKey: value) {
            self = .log(number)
        } else {
            self = .inline
        }
    }
}

/// An entry's record and where it was found, valid until the transaction's next write.
struct StoredRecord {
    let bytes: UnsafeRawBufferPointer
    let location: RecordLocation
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
        self.init(bytes: record, location: .log(number), followingBytes: bytes)
    }
}

extension LMDBTransaction {
    /// The record of the entry at `digest`, or nil (no entry, a stale pointer, or a logged record
    /// in a log this process cannot see: it was created by another process after this one opened).
    func record(of digest: KeyDigest, _ databases: BlobStore.Databases) throws -> StoredRecord? {
        if let tail = databases.pointerTail,
            let found = try databases.tailIndex.firstMatch(of: digest, in: self, tail: tail, { number in
                try loggedRecord(of: digest, number: number, databases)
            })
        {
            return found
        }
        guard let value = try digest.withBytes({ try get(databases.records, key: $0) }) else { return nil }
        return try resolve(value, digest: digest, databases)
    }

    /// The record logged under `number` when it is `digest`'s; nil otherwise.
    func loggedRecord(of digest: KeyDigest, number: UInt64, _ databases: BlobStore.Databases) throws -> StoredRecord? {
        guard let log = databases.recordLog, let logged = try BlobLocation.log(number).withKey({ try get(log, key: $0) })
        else { return nil }
        return StoredRecord(logged: logged, number: number, digest: digest)
    }

    /// The record a `records` value names.
    private func resolve(_ value: UnsafeRawBufferPointer, digest: KeyDigest, _ databases: BlobStore.Databases) throws
        -> StoredRecord?
    {
        let location = RecordLocation(recordsValue: value)
        guard case let .log(number) = location else { return StoredRecord(bytes: value, location: .inline) }
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

    /// Stores `record` as the entry at `digest`'s: in the record log under `number` when there is
    /// one (`appending`: the number is past every key there), followed by `followingBytes` when
    /// the record says the entry's bytes follow it, its pointer appended to the pointer tail
    /// `toTail` when there is one (see ``PointerTailIndex``), else written into `records`; else in
    /// `records`. Returns where, and whether the pointer went to the tail.
    @discardableResult
    func putRecord(
        _ record: [UInt8], of digest: KeyDigest, number: UInt64?, appending: Bool,
        followedBy followingBytes: UnsafeRawBufferPointer? = nil, toTail: Bool = false, _ databases: BlobStore.Databases
    ) throws -> (location: RecordLocation, inTail: Bool) {
        guard let number, databases.recordLog != nil else {
            try replaceRecord(record, of: digest, at: .inline, databases)
            return (.inline, false)
        }
        try replaceRecord(record, of: digest, at: .log(number), followedBy: followingBytes, databases, appending: appending)
        if toTail, let tail = databases.pointerTail {
            try appendToTail(number, digest: digest, tail)
            return (.log(number), true)
        }
        try BlobLocation.log(number).withKey { pointer in try digest.withBytes { try put(databases.records, key: $0, value: pointer) } }
        return (.log(number), false)
    }

    /// Rewrites the entry at `digest`'s record where it is, leaving any pointer to it as it is; a
    /// logged record is followed by `followingBytes` (see ``BlobLocation``).
    func replaceRecord(
        _ record: [UInt8], of digest: KeyDigest, at location: RecordLocation,
        followedBy followingBytes: UnsafeRawBufferPointer? = nil, _ databases: BlobStore.Databases,
        appending: Bool = false
    ) throws {
        switch location {
        case let .log(number):
            guard let log = databases.recordLog else { return }
            let prefix = RecordLocation.digestPrefixBytes
            let count = prefix + record.count + (followingBytes?.count ?? 0)
            // Written in place (`MDB_RESERVE`): no copy of the bytes in between.
            try BlobLocation.log(number).withKey { key in
                try put(log, key: key, reserving: count, flags: appending ? UInt32(MDB_APPEND) : 0) { value in
                    digest.withBytes { value.copyMemory(from: $0) }
                    record.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: value[prefix...]).copyMemory(from: $0) }
                    if let followingBytes, followingBytes.count > 0 {
                        UnsafeMutableRawBufferPointer(rebasing: value[(prefix + record.count)...]).copyMemory(from: followingBytes)
                    }
                }
            }
        case .inline:
            try digest.withBytes { key in try record.withUnsafeBytes { try put(databases.records, key: key, value: $0) } }
        }
    }

    /// Deletes the logged record under `number` (for `verify`'s repair: no pointer names it).
    func deleteOrphanedLogRecord(_ number: UInt64, _ databases: BlobStore.Databases) throws {
        guard let log = databases.recordLog else { return }
        _ = try BlobLocation.log(number).withKey { try delete(log, key: $0) }
    }

    /// Deletes the entry at `digest`'s record, found at `location`; a logged one's pointer stays
    /// when `keepingPointer` (see ``RecordLocation``). `logCursor`, a cursor on the record log,
    /// deletes a logged record through it (see ``LMDBCursor``).
    func deleteRecord(
        of digest: KeyDigest, at location: RecordLocation, keepingPointer: Bool, logCursor: LMDBCursor? = nil,
        _ databases: BlobStore.Databases
    ) throws {
        if case let .log(number) = location, let log = databases.recordLog {
            try BlobLocation.log(number).withKey { key in
                _ = try logCursor.map { try $0.delete(key) } ?? delete(log, key: key)
            }
            if keepingPointer { return }
        }
        try digest.withBytes { _ = try delete(databases.records, key: $0) }
    }

    /// Walks every entry until `body` returns false: its digest and record. Those whose pointers
    /// are in the tail (see ``PointerTailIndex``) come first, in the order they were logged; then those
    /// of `records`, in digest order. Stale pointers are passed over; `records` values that are
    /// not records are passed on as they are, for the caller to find unreadable.
    func forEachRecord(
        _ databases: BlobStore.Databases, _ body: (KeyDigest, StoredRecord) throws -> Bool
    ) throws {
        // A digest whose record the tail names is taken from there, whatever `records` holds.
        var fromTail = Set<KeyDigest>()
        var stopped = false
        if let tail = databases.pointerTail {
            try forEach(tail) { key, value in
                guard let number = BlobLocation.number(fromKey: key), let digest = KeyDigest(bytes: value),
                    let record = try loggedRecord(of: digest, number: number, databases)
                else { return true }
                fromTail.insert(digest)
                stopped = try !body(digest, record)
                return !stopped
            }
        }
        if stopped { return }
        try forEach(databases.records) { key, value in
            guard let digest = KeyDigest(bytes: key), !fromTail.contains(digest) else { return true }
            guard let record = try resolve(value, digest: digest, databases) else { return true }
            return try body(digest, record)
        }
    }
}
