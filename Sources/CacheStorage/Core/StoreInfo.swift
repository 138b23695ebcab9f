import CLMDB
import Foundation

/// The store-wide values LMDB keeps in its `info` database, and the change journal.
///
/// Every LMDB write transaction appends the digests it touched (with the index rows it left
/// behind, see ``JournalItem``) to the journal under increasing sequence numbers; SQLite records
/// the last sequence it mirrored. Entries at or below that are trimmed. That makes the SQLite index a replayable mirror of LMDB, whatever instant a process dies.
struct StoreInfo: Equatable {
    /// The one on-disk layout this code reads and writes. A store of any other number (older or
    /// newer) is moved aside and replaced by an empty one, as a damaged one is (see ``StoreOpener``).
    static let currentFormat: UInt32 = 7

    /// What reading the store info of a store of another format throws: nothing after the format
    /// number is read, since another format may lay it out otherwise.
    struct OtherFormat: Error {
        let format: UInt64
    }

    var storeID: [UInt8]
    var nextSequence: UInt64
    var trimmedThrough: UInt64
    /// No log number below it is given again (see ``BlobNumbers``).
    var numberFloor = NumberFloor()

    /// The last sequence number written.
    var head: UInt64 { nextSequence - 1 }

    static func fresh() -> StoreInfo {
        var generator = SystemRandomNumberGenerator()
        let id = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return StoreInfo(storeID: id, nextSequence: 1, trimmedThrough: 0)
    }
}

extension LMDBTransaction {
    private static let infoKey = Array("store-info".utf8)

    /// The store info; nil in a store that has none yet.
    /// - Throws: ``StoreInfo/OtherFormat`` for a store of another format.
    func storeInfo(_ databases: BlobStore.Databases) throws -> StoreInfo? {
        guard let value = try Self.infoKey.withUnsafeBytes({ try get(databases.info, key: $0) }) else { return nil }
        var reader = ByteReader(value)
        guard let format = reader.readUInt64() else {
            throw StorageError.lmdb(operation: "read store info", code: MDB_CORRUPTED, message: "unreadable store info")
        }
        guard format == StoreInfo.currentFormat else { throw StoreInfo.OtherFormat(format: format) }
        // A sequence of 0 or one near the top of its range, or a trim past the head, was not
        // written by this code: damage, never a trap on the arithmetic that follows.
        guard let next = reader.readUInt64(), let trimmed = reader.readUInt64(), let id = reader.readBytes(),
            let floor = reader.readUInt64(), reader.isAtEnd, next >= 1, next < UInt64(Int64.max), trimmed < next
        else {
            throw StorageError.lmdb(operation: "read store info", code: MDB_CORRUPTED, message: "unreadable store info")
        }
        return StoreInfo(storeID: id, nextSequence: next, trimmedThrough: trimmed, numberFloor: NumberFloor(stored: floor))
    }

    func writeStoreInfo(_ info: StoreInfo, _ databases: BlobStore.Databases) throws {
        var writer = ByteWriter()
        writer.append(UInt64(StoreInfo.currentFormat))
        writer.append(info.nextSequence)
        writer.append(info.trimmedThrough)
        writer.appendBytes(info.storeID)
        writer.append(info.numberFloor.value)
        try Self.infoKey.withUnsafeBytes { key in
            try writer.bytes.withUnsafeBytes { try put(databases.info, key: key, value: $0) }
        }
    }

    /// The sequence a journal key names (8 bytes, big-endian, so LMDB keeps the items in order);
    /// nil for a key of another length.
    private static func sequence(inKey key: UnsafeRawBufferPointer) -> UInt64? {
        key.count == 8 ? UInt64(bigEndian: key.loadUnaligned(as: UInt64.self)) : nil
    }

    /// Appends `items` to the journal and advances `info.nextSequence`.
    func appendJournal(_ items: some Sequence<JournalItem>, info: inout StoreInfo, _ databases: BlobStore.Databases) throws {
        // Sequences only grow, so the items go on the journal's last page without a search for
        // each (`MDB_APPEND`), unless a key there sorts at or after the next sequence (a store info
        // rewritten from scratch), when LMDB would refuse them: then each is put in its place.
        let appends = try lastKey(databases.journal).map { last in
            Self.sequence(inKey: last).map { $0 < info.nextSequence } ?? false
        }
        let flags = (appends ?? true) ? UInt32(MDB_APPEND) : 0  // an empty journal is appended to as well
        var encoded: [UInt8] = []
        for item in items {
            let sequence = info.nextSequence.bigEndian
            item.encode(into: &encoded)
            _ = try withUnsafeBytes(of: sequence) { key in
                try encoded.withUnsafeBytes { try put(databases.journal, key: key, value: $0, flags: flags) }
            }
            info.nextSequence += 1
        }
    }

    /// Deletes journal entries up to and including `sequence` (all already mirrored).
    func trimJournal(through sequence: UInt64, info: inout StoreInfo, _ databases: BlobStore.Databases) throws {
        guard sequence > info.trimmedThrough else { return }
        try LMDBCursor(self, databases.journal).deleteLeading { key in
            guard let keyed = Self.sequence(inKey: key) else { return false }
            return keyed <= sequence ? true : nil
        }
        info.trimmedThrough = min(sequence, info.head)
    }

    /// Digests journaled after `sequence`, up to the head.
    func journalDigests(after sequence: UInt64, _ databases: BlobStore.Databases) throws -> Set<KeyDigest> {
        var digests = Set<KeyDigest>()
        try forEachJournalItem(after: sequence, databases) { digests.insert($0.digest) }
        return digests
    }

    /// Items journaled after `sequence`, merged by digest (replay is order-free).
    func journalItems(after sequence: UInt64, _ databases: BlobStore.Databases) throws -> [JournalItem] {
        var items: [KeyDigest: JournalItem] = [:]
        var order: [KeyDigest] = []
        try forEachJournalItem(after: sequence, databases) { item in
            if items[item.digest] == nil {
                order.append(item.digest)
                items[item.digest] = item
            } else {
                items[item.digest]!.rowsLeft += item.rowsLeft
            }
        }
        return order.map { items[$0]! }
    }

    private func forEachJournalItem(
        after sequence: UInt64, _ databases: BlobStore.Databases, _ body: (JournalItem) -> Void
    ) throws {
        let start = (sequence + 1).bigEndian
        try withUnsafeBytes(of: start) { startKey in
            try forEach(databases.journal, from: startKey) { _, value in
                if let decoded = JournalItem.decode(value) { body(decoded) }
                return true
            }
        }
    }
}
