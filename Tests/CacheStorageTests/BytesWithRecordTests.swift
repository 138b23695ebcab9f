import Foundation
import TestSupport
import Testing

@testable import CacheStorage

/// Entries of up to `BlobLocation.withRecordLimit` bytes keep them after their record in its record
/// log value: a read finds record and bytes in one value, a put appends one value, a deletion
/// deletes one. Larger entries keep theirs in the blob log.
@Suite("Bytes with their records")
struct BytesWithRecordTests {
    static func key(_ number: Int) -> String { "https://cdn.example.com/small/\(number).jpg" }
    static let small = 2_000
    static let large = BlobLocation.withRecordLimit + 1
    static func bytes(_ number: Int, size: Int = small) -> Data {
        Data(progression: size, start: number, step: 29)
    }

    static func location(_ store: PersistentStore, _ key: String) throws -> BlobLocation? {
        try BlobLogTests.location(store, key)
    }

    @Test("small bytes follow their records, large ones go to the blob log; the limit is inclusive")
    func layout() async throws {
        let folder = TemporaryDirectory()
        let store = try PersistentStore(directory: folder.url, configuration: .strictWithPointersInRecords)
        defer { store.close() }
        let sizes = [Self.small, Self.large, BlobLocation.withRecordLimit, 0, 1]
        try await store.put(sizes.enumerated().map { NewEntry(key: Self.key($0), data: Self.bytes($0, size: $1)) })
        let layout = try RecordLogTests.layout(store)
        #expect(layout.loggedRecords == [1, 2, 3, 4, 5])
        #expect(layout.loggedBlobs == [2], "only the entry above the limit has a blob in the blob log")
        #expect(try Self.location(store, Self.key(0)) == .withRecord(1))
        #expect(try Self.location(store, Self.key(1)) == .log(2))
        #expect(try Self.location(store, Self.key(2)) == .withRecord(3))
        #expect(try Self.location(store, Self.key(3)) == .withRecord(4), "no bytes follow: still an entry")
        for (number, size) in sizes.enumerated() {
            let entry = try #require(try store.get(Self.key(number)))
            #expect(entry.data == Self.bytes(number, size: size))
            #expect(entry.metadata.byteCount == size)
        }
        #expect(try store.statistics().entries == sizes.count)
        #expect(try await store.verify().isClean)
    }

    @Test("new attributes keep the bytes; new bytes move them; removal and eviction leave nothing behind")
    func lifecycle() async throws {
        let folder = TemporaryDirectory()
        let store = try PersistentStore(directory: folder.url, configuration: .strictWithPointersInRecords)
        defer { store.close() }
        try await store.put((0..<6).map { NewEntry(key: Self.key($0), data: Self.bytes($0)) })

        // A 304: the record is rewritten under its number, its bytes carried along.
        #expect(try await store.updateAttributes(for: Self.key(0), to: EntryAttributes(etag: "\"v2\"")))
        #expect(try Self.location(store, Self.key(0)) == .withRecord(1))
        let updated = try #require(try store.get(Self.key(0)))
        #expect(updated.data == Self.bytes(0))
        #expect(updated.metadata.attributes.etag == "\"v2\"")

        // Small to large, large to small, small to small: the old value goes each time.
        try await store.put(NewEntry(key: Self.key(1), data: Self.bytes(11, size: Self.large)))
        #expect(try Self.location(store, Self.key(1)) == .log(7))
        try await store.put(NewEntry(key: Self.key(1), data: Self.bytes(12)))
        #expect(try Self.location(store, Self.key(1)) == .withRecord(8))
        try await store.put(NewEntry(key: Self.key(2), data: Self.bytes(22, size: 10)))
        #expect(try Self.location(store, Self.key(2)) == .withRecord(9))
        #expect(try await store.remove(Self.key(3)))
        var layout = try RecordLogTests.layout(store)
        #expect(layout.loggedRecords == [1, 5, 6, 8, 9])
        #expect(layout.loggedBlobs.isEmpty)
        #expect(layout.pointers == 5 && layout.stalePointers == 0)
        #expect(try store.get(Self.key(1))?.data == Self.bytes(12))
        #expect(try store.get(Self.key(2))?.data == Self.bytes(22, size: 10))
        #expect(try store.get(Self.key(3)) == nil)
        #expect(try await store.verify().isClean)

        // Read last, keys 0 and 1 stay.
        for number in [0, 1] { #expect(try store.get(Self.key(number)) != nil) }
        try await store.flush()
        #expect(try await store.evict(toEntries: 2).entries == 3)
        layout = try RecordLogTests.layout(store)
        #expect(layout.loggedRecords == [1, 8])
        #expect(layout.loggedBlobs.isEmpty)
        #expect(layout.stalePointers == 0)
        #expect(try store.get(Self.key(0))?.data == Self.bytes(0))
        #expect(try store.get(Self.key(1))?.data == Self.bytes(12))
        #expect(try store.statistics().entries == 2)
        #expect(try await store.verify().isClean)
    }
}
