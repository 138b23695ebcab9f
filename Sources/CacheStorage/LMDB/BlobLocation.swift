import CLMDB

/// Where an entry's bytes live: after its record in the record log, or in the blob log under the
/// number its record names.
///
/// The log keys blobs by numbers given in the order they were written, so a batch of puts appends
/// its blobs to the log's last pages (`MDB_APPEND`) instead of writing a random leaf of a
/// digest-keyed tree for each, and eviction, which takes the oldest first, deletes them from the
/// front. The record stays under the digest: a read finds it there, then the blob by its number.
///
/// Bytes of up to ``withRecordLimit`` follow their record in its record log value instead
/// (`withRecord`): a read then finds them in the value it reads the record from, one B-tree search
/// in two trees instead of three, and a put appends one value, a deletion deletes one. Larger bytes
/// stay in the blob log, so that a revalidation, which rewrites the record, does not rewrite them.
enum BlobLocation: Equatable {
    case log(UInt64)
    case withRecord(UInt64)

    /// The largest entry whose bytes are stored with its record: a thumbnail's, not an original
    /// photo's. A record rewritten for new attributes carries its bytes along; 16 KiB more at a
    /// 304 is small beside the index row updated with it.
    static let withRecordLimit = 16 * 1024

    /// Where the entry whose record is `record` keeps its bytes; nil when there is no record, or
    /// one too damaged to name a number (every stored record names one).
    init?(record: UnsafeRawBufferPointer?) {
        guard let record, let number = EntryRecord.blobNumber(in: record) else { return nil }
        self = EntryRecord.bytesFollow(in: record) ? .withRecord(number) : .log(number)
    }

    /// The log number this location takes (a record with its bytes takes its record's).
    var number: UInt64 {
        switch self {
        case let .log(number), let .withRecord(number): number
        }
    }

    /// The key under which the blob is stored in its database.
    func withKey<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try withUnsafeBytes(of: number.bigEndian) { try body($0) }
    }

    /// The database that holds it.
    func database(_ databases: BlobStore.Databases) -> MDB_dbi {
        switch self {
        case .log: databases.blobLog
        case .withRecord: databases.recordLog
        }
    }

    /// A blob log number as its 8 key bytes read back; nil for a key of another length.
    static func number(fromKey key: UnsafeRawBufferPointer) -> UInt64? {
        guard key.count == 8 else { return nil }
        return UInt64(bigEndian: key.loadUnaligned(as: UInt64.self))
    }
}

extension LMDBTransaction {
    /// What `body` makes of the bytes of the entry whose record is `stored` (nil when they are
    /// missing), at `location`, where that record says they are (the caller has it already:
    /// reading the record again for it doubled the work).
    ///
    /// A blob of ``unmappedAfterReading`` or more is unmapped from the process once `body` has
    /// copied or hashed it (``BlobStore/unmapPages(of:)``): kept mapped, every large entry ever
    /// read would stay in the process's resident memory, which would grow toward the size of the
    /// cache although nothing holds those pages any more.
    func withBytes<Result>(
        of stored: StoredRecord, at location: BlobLocation, _ databases: BlobStore.Databases,
        _ body: (UnsafeRawBufferPointer?) throws -> Result
    ) throws -> Result {
        if case .withRecord = location { return try body(stored.followingBytes) }
        let blob = try blob(at: location, databases)
        defer { if let blob, blob.count >= Self.unmappedAfterReading { BlobStore.unmapPages(of: blob) } }
        return try body(blob)
    }

    /// The smallest blob whose pages a read unmaps: smaller ones share their pages with their
    /// neighbours in the log, and a read of one would cost a system call for a page or two.
    static let unmappedAfterReading = 64 * 1024

    /// The blob at `location` in the blob log, or nil (bytes with their record: see
    /// `withBytes(of:at:_:_:)`).
    func blob(at location: BlobLocation, _ databases: BlobStore.Databases) throws -> UnsafeRawBufferPointer? {
        if case .withRecord = location { return nil }
        return try location.withKey { try get(location.database(databases), key: $0) }
    }

    /// Deletes the blob at `location`; returns whether it existed. `logCursor`, a cursor on the
    /// blob log, deletes a logged blob through it (see ``LMDBCursor``). Bytes with their record
    /// go with the record: nothing to delete here.
    @discardableResult
    func deleteBlob(at location: BlobLocation, logCursor: LMDBCursor? = nil, _ databases: BlobStore.Databases) throws
        -> Bool
    {
        if case .withRecord = location { return false }
        if let logCursor { return try location.withKey { try logCursor.delete($0) } }
        return try location.withKey { try delete(location.database(databases), key: $0) }
    }

    /// Where the entry at `digest` keeps its bytes, as its current record says; nil without one.
    func blobLocation(of digest: KeyDigest, _ databases: BlobStore.Databases) throws -> BlobLocation? {
        BlobLocation(record: try record(of: digest, databases)?.bytes)
    }
}
