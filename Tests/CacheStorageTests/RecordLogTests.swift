import Foundation
import TestSupport
import Testing

@testable import CacheStorage

/// Records live in the record log under their blobs' numbers, reached from `records` by that number
/// (`RecordLocation`). A mass eviction deletes the logged record and blob and leaves the number in
/// `records` until it deletes the numbers together, in digest order: until then such a stale pointer
/// must read as no entry, even when its number has been given to another entry since.
@Suite("Record log")
struct RecordLogTests {
    static func key(_ number: Int) -> String { "https://cdn.example.com/records/\(number).jpg" }
    /// Above `BlobLocation.withRecordLimit`, so that each record names a blob in the blob log
    /// (`BytesWithRecordTests` covers small entries, whose bytes follow their records).
    static func bytes(_ number: Int, size: Int = 20_000) -> Data {
        Data(progression: size, start: number, step: 13)
    }

    struct Layout: Equatable {
        /// `records` values that are numbers, live or stale.
        var pointers = 0
        var stalePointers = 0
        /// `records` values that are no number (damage: nothing writes one).
        var otherValues = 0
        var loggedRecords: [UInt64] = []
        var loggedBlobs: [UInt64] = []
    }

    static func layout(_ store: PersistentStore) throws -> Layout {
        let blobs = store.core.blobs
        let databases = blobs.databases
        return try blobs.read { txn in
            var layout = Layout()
            try txn.forEach(databases.records) { key, value in
                guard RecordLocation.number(inRecordsValue: value) != nil else {
                    layout.otherValues += 1
                    return true
                }
                layout.pointers += 1
                // A number that resolves to no record of the digest's.
                if let digest = KeyDigest(bytes: key), try txn.record(of: digest, databases) == nil { layout.stalePointers += 1 }
                return true
            }
            for (database, numbers) in [(databases.recordLog, \Layout.loggedRecords), (databases.blobLog, \Layout.loggedBlobs)] {
                try txn.forEach(database) { key, _ in
                    layout[keyPath: numbers].append(BlobLocation.number(fromKey: key) ?? 0)
                    return true
                }
            }
            return layout
        }
    }

    /// The number `key`'s record is logged under.
    static func recordNumber(_ store: PersistentStore, _ key: String) throws -> UInt64? {
        let blobs = store.core.blobs
        return try blobs.read { try $0.record(of: KeyDigest(key: key), blobs.databases)?.number }
    }

    /// Deletes `key`'s entry as an eviction slice does, keeping its pointer: journaled, so the index
    /// follows. `raisingFloor` as the slice does; without it, the deleted number may be given
    /// again (as no eviction lets happen: the test of what a stale pointer reads then).
    static func deleteKeepingPointer(_ store: PersistentStore, _ key: String, raisingFloor: Bool = true) throws
        -> [LeftPointer]
    {
        let blobs = store.core.blobs
        return try blobs.write { txn in
            var info = try #require(try txn.storeInfo(blobs.databases))
            if raisingFloor { try BlobNumbers.raiseFloorPastLogs(&info, txn, blobs.databases) }
            var changes = ChangeSet(txn: txn, databases: blobs.databases)
            #expect(try changes.delete(KeyDigest(key: key), keepingPointer: true) != nil)
            try txn.appendJournal(changes.touched, info: &info, blobs.databases)
            try txn.writeStoreInfo(info, blobs.databases)
            return changes.keptPointers
        }
    }

    @Test("records are logged under their blobs' numbers, and records holds only the numbers")
    func recordsFollowBlobs() async throws {
        let folder = TemporaryDirectory()
        let store = try PersistentStore(directory: folder.url, configuration: .strictWithPointersInRecords)
        defer { store.close() }
        try await store.put((0..<10).map { NewEntry(key: Self.key($0), data: Self.bytes($0)) })
        var layout = try Self.layout(store)
        #expect(layout == Layout(pointers: 10, loggedRecords: Array(1...10), loggedBlobs: Array(1...10)))
        #expect(try Self.recordNumber(store, Self.key(4)) == 5)

        // New attributes rewrite the record under its number; new bytes move it with its blob.
        #expect(try await store.updateAttributes(for: Self.key(4), to: EntryAttributes(etag: "\"v2\"")))
        #expect(try Self.recordNumber(store, Self.key(4)) == 5)
        #expect(try store.metadata(for: Self.key(4))?.attributes.etag == "\"v2\"")
        try await store.put(NewEntry(key: Self.key(5), data: Self.bytes(50)))
        #expect(try Self.recordNumber(store, Self.key(5)) == 11)
        #expect(try await store.remove(Self.key(6)))
        layout = try Self.layout(store)
        #expect(layout.pointers == 9 && layout.stalePointers == 0)
        #expect(layout.loggedRecords == [1, 2, 3, 4, 5, 8, 9, 10, 11])
        #expect(layout.loggedBlobs == layout.loggedRecords)
        #expect(try store.get(Self.key(5))?.data == Self.bytes(50))
        #expect(try store.get(Self.key(6)) == nil)
        #expect(try await store.verify().isClean)
    }

    /// Entry sizes on either side of `BlobLocation.withRecordLimit`: bytes after their records, or in the blob log.
    static let sizes = [1_200, 20_000]

    /// The blob log's keys for logged records `records` of entries of `size` bytes.
    static func loggedBlobs(_ records: [UInt64], size: Int) -> [UInt64] {
        size > BlobLocation.withRecordLimit ? records : []
    }

    @Test("a mass eviction takes the least recently used and leaves no number behind in records", arguments: sizes)
    func evictionLeavesNoPointers(size: Int) async throws {
        let folder = TemporaryDirectory()
        let store = try PersistentStore(directory: folder.url, configuration: .strictWithPointersInRecords)
        defer { store.close() }
        let count = 3_000
        for start in stride(from: 0, to: count, by: 500) {
            try await store.put((start..<start + 500).map { NewEntry(key: Self.key($0), data: Self.bytes($0, size: size)) })
        }
        // Read last, the oldest ten stay; the eviction takes the next oldest.
        for number in 0..<10 { #expect(try store.get(Self.key(number)) != nil) }
        try await store.flush()
        let removed = try await store.evict(toEntries: count / 2)
        #expect(removed.entries == count / 2)
        let layout = try Self.layout(store)
        #expect(layout.stalePointers == 0)
        #expect(layout.pointers == count / 2)
        #expect(layout.loggedRecords.count == count / 2)
        #expect(layout.loggedBlobs == Self.loggedBlobs(layout.loggedRecords, size: size))
        #expect(try store.statistics().entries == count / 2)
        // Entries of one batch share their stored time and go in digest order: the fourth batch
        // loses ten, which ones its digests decide.
        for number in 0..<10 { #expect(try store.peek(Self.key(number))?.data == Self.bytes(number, size: size)) }
        for number in 10..<1_500 { #expect(try !store.contains(Self.key(number))) }
        #expect(try (1_500..<2_000).filter { try store.contains(Self.key($0)) }.count == 490)
        for number in 2_000..<count { #expect(try store.peek(Self.key(number))?.data == Self.bytes(number, size: size)) }
        #expect(try await store.verify().isClean)
        // An evicted key is stored again as a new entry.
        try await store.put(NewEntry(key: Self.key(10), data: Self.bytes(7)))
        #expect(try store.get(Self.key(10))?.data == Self.bytes(7))
    }

    @Test("a stale number reads as no entry, even once the number is given to another entry", arguments: sizes)
    func stalePointerAfterItsNumberIsReused(size: Int) async throws {
        let folder = TemporaryDirectory()
        let store = try PersistentStore(directory: folder.url, configuration: .strictWithPointersInRecords)
        defer { store.close() }
        try await store.put(NewEntry(key: Self.key(0), data: Self.bytes(0, size: size)))
        try await store.put(NewEntry(key: Self.key(1), data: Self.bytes(1, size: size)))
        // The newest entry goes, its number staying in records: the log's last key is 1 again, and
        // no floor keeps number 2 from being given again (an eviction raises one first).
        #expect(
            try Self.deleteKeepingPointer(store, Self.key(1), raisingFloor: false)
                == [LeftPointer(digest: KeyDigest(key: Self.key(1)), number: 2)])
        #expect(try Self.layout(store).stalePointers == 1)
        #expect(try store.get(Self.key(1)) == nil)

        // Number 2 is given again, to another entry: the stale number now finds that one's record.
        try await store.put(NewEntry(key: Self.key(2), data: Self.bytes(2, size: size)))
        #expect(try Self.recordNumber(store, Self.key(2)) == 2)
        #expect(try store.get(Self.key(1)) == nil)
        #expect(try !store.contains(Self.key(1)))
        #expect(try store.metadata(for: Self.key(1)) == nil)
        #expect(try await store.verify().isClean, "a stale number is not an entry, nor damage")

        // Storing the key again must not take the other entry's record or blob for its own.
        try await store.put(NewEntry(key: Self.key(1), data: Self.bytes(11, size: size)))
        #expect(try Self.recordNumber(store, Self.key(1)) == 3)
        #expect(try store.get(Self.key(1))?.data == Self.bytes(11, size: size))
        #expect(try store.get(Self.key(2))?.data == Self.bytes(2, size: size))
        let blobs = store.core.blobs
        let deleted = try blobs.write { txn in
            let records = try LMDBCursor(txn, blobs.databases.records)
            return try txn.deleteLeftPointer(LeftPointer(digest: KeyDigest(key: Self.key(1)), number: 2), records: records)
        }
        #expect(!deleted, "the key's new number stays")
        let layout = try Self.layout(store)
        #expect(layout.pointers == 3 && layout.stalePointers == 0)
        #expect(layout.loggedRecords == [1, 2, 3] && layout.loggedBlobs == Self.loggedBlobs([1, 2, 3], size: size))
        #expect(try store.statistics().entries == 3)
        #expect(try await store.verify().isClean)
    }

    @Test("a number an eviction deleted is not given again: its pointer is swept by number, a key put again keeps its own", arguments: sizes)
    func evictedNumbersAreNotGivenAgain(size: Int) async throws {
        let folder = TemporaryDirectory()
        let store = try PersistentStore(directory: folder.url, configuration: .strictWithPointersInRecords)
        defer { store.close() }
        try await store.put((0..<3).map { NewEntry(key: Self.key($0), data: Self.bytes($0, size: size)) })
        // Slice and sweep, the logs' last numbers included.
        #expect(try await store.evict(toEntries: 0).entries == 3)
        var layout = try Self.layout(store)
        #expect(layout.pointers == 0 && layout.loggedRecords.isEmpty)
        let blobs = store.core.blobs
        #expect(try blobs.read { try $0.storeInfo(blobs.databases)?.numberFloor.value } == 4)
        try await store.put((0..<3).map { NewEntry(key: Self.key($0), data: Self.bytes($0 + 10, size: size)) })
        #expect(try (0..<3).map { try Self.recordNumber(store, Self.key($0)) } == [4, 5, 6])

        // Between a slice and its sweep: the newest entry goes, its number staying in records; the
        // key put again takes a new number, not the one left.
        let left = try Self.deleteKeepingPointer(store, Self.key(2))
        #expect(left == [LeftPointer(digest: KeyDigest(key: Self.key(2)), number: 6)])
        try await store.put(NewEntry(key: Self.key(2), data: Self.bytes(22, size: size)))
        #expect(try Self.recordNumber(store, Self.key(2)) == 7)
        let another = try Self.deleteKeepingPointer(store, Self.key(1))
        #expect(try Self.layout(store).stalePointers == 1)
        let deleted = try blobs.write { txn in
            let records = try LMDBCursor(txn, blobs.databases.records)
            return try (left + another).map { try txn.deleteLeftPointer($0, records: records) }
        }
        #expect(deleted == [false, true], "a key put again keeps its number; the one still naming its deleted number goes")
        layout = try Self.layout(store)
        #expect(layout.pointers == 2 && layout.stalePointers == 0)
        #expect(layout.loggedRecords == [4, 7] && layout.loggedBlobs == Self.loggedBlobs([4, 7], size: size))
        #expect(try store.get(Self.key(0))?.data == Self.bytes(10, size: size))
        #expect(try store.get(Self.key(1)) == nil)
        #expect(try store.get(Self.key(2))?.data == Self.bytes(22, size: size))
        try await store.flush()
        #expect(try store.statistics().entries == 2)
        #expect(try await store.verify().isClean)
    }

    @Test("verify reports a logged record that no number in records names, and repair deletes it")
    func orphanedLogRecord() async throws {
        let folder = TemporaryDirectory()
        let store = try PersistentStore(directory: folder.url, configuration: .strictWithPointersInRecords)
        defer { store.close() }
        try await store.put((0..<3).map { NewEntry(key: Self.key($0), data: Self.bytes($0)) })
        let blobs = store.core.blobs
        try blobs.write { txn in
            let logged = KeyDigest(key: Self.key(9)).bytes + [1, 2, 3]
            try BlobLocation.log(99).withKey { key in
                try logged.withUnsafeBytes { try txn.put(blobs.databases.recordLog, key: key, value: $0) }
            }
        }
        let report = try await store.verify(repair: true)
        #expect(report.problems == [.orphanBlob(digest: "record#99")])
        #expect(try Self.layout(store).loggedRecords == [1, 2, 3])
        #expect(try await store.verify().isClean)
    }
}
