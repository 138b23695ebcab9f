import Foundation
import TestSupport
import Testing

@testable import CacheStorage

/// Blobs live in the blob log under numbers given in the order they were written (`BlobLocation`);
/// records from before the log keep theirs under their digests. Every path that ends an entry's
/// bytes must delete them where they are, or the file grows with blobs nothing names.
@Suite("Blob log")
struct BlobLogTests {
    static func key(_ number: Int) -> String { "https://cdn.example.com/log/\(number).jpg" }
    /// Above `BlobLocation.withRecordLimit`: bytes that go to the blob log.
    static func bytes(_ number: Int, size: Int = 20_000) -> Data { Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ number) }) }

    /// Keys in the log and in the digest-keyed database, and the store's format.
    static func layout(_ store: PersistentStore) throws -> (log: [UInt64], byDigest: Int, format: UInt32) {
        let blobs = store.core.blobs
        return try blobs.read { txn in
            var numbers: [UInt64] = []
            if let log = blobs.databases.blobLog {
                try txn.forEach(log) { key, _ in
                    numbers.append(BlobLocation.number(fromKey: key) ?? 0)
                    return true
                }
            }
            return (numbers, try txn.count(blobs.databases.blobs), try txn.storeInfo(blobs.databases)?.format ?? 0)
        }
    }

    static func location(_ store: PersistentStore, _ key: String) throws -> BlobLocation {
        let blobs = store.core.blobs
        return try blobs.read { try $0.blobLocation(of: KeyDigest(key: key), blobs.databases) }
    }

    @Test("puts append to the log; new bytes, a removal and an eviction delete there; new attributes keep the blob")
    func logFollowsEntries() async throws {
        let folder = TemporaryDirectory()
        let store = try PersistentStore(directory: folder.url, configuration: .strictWithPointersInRecords)
        defer { store.close() }
        try await store.put((0..<10).map { NewEntry(key: Self.key($0), data: Self.bytes($0)) })
        var layout = try Self.layout(store)
        #expect(layout.log == Array(1...10))
        #expect(layout.byDigest == 0)
        #expect(layout.format == StoreInfo.currentFormat)
        #expect(try Self.location(store, Self.key(3)) == .log(4))

        #expect(try await store.updateAttributes(for: Self.key(0), to: EntryAttributes(etag: "\"v2\"")))
        #expect(try store.get(Self.key(0))?.data == Self.bytes(0))
        #expect(try Self.location(store, Self.key(0)) == .log(1))

        try await store.put(NewEntry(key: Self.key(1), data: Self.bytes(100, size: 17_000)))
        #expect(try Self.location(store, Self.key(1)) == .log(11))
        #expect(try store.get(Self.key(1))?.data == Self.bytes(100, size: 17_000))
        #expect(try await store.remove(Self.key(2)))
        layout = try Self.layout(store)
        #expect(layout.log == [1, 4, 5, 6, 7, 8, 9, 10, 11])

        let removed = try await store.evict(toBytes: 5 * 20_000)
        #expect(removed.entries == 4)
        let statistics = try store.statistics()
        #expect(try Self.layout(store).log.count == statistics.entries)
        #expect(statistics.entries == 5)
        #expect(try await store.verify().isClean)
        for number in [0, 1, 3, 4, 5, 6, 7, 8, 9] where try store.contains(Self.key(number)) {
            #expect(try store.peek(Self.key(number))?.data == (number == 1 ? Self.bytes(100, size: 17_000) : Self.bytes(number)))
        }
    }

    @Test("a store from before the log reads its entries, and moves each to the log when it is replaced")
    func upgradesAStoreWithoutTheLog() async throws {
        let folder = TemporaryDirectory()
        // What a format-1 version wrote: records naming no number, blobs under digests.
        try OlderFormats.makeStore(in: folder.url, format: 1, entries: (0..<3).map { (Self.key($0), Self.bytes($0)) })
        let store = try PersistentStore(directory: folder.url, configuration: .strictWithPointersInRecords)
        defer { store.close() }
        #expect(try Self.layout(store).format == 1, "opening writes nothing")
        for number in 0..<3 { #expect(try store.get(Self.key(number))?.data == Self.bytes(number)) }
        #expect(try store.statistics().entries == 3)
        #expect(try await store.verify().isClean)

        try await store.put(NewEntry(key: Self.key(0), data: Self.bytes(50)))
        var layout = try Self.layout(store)
        #expect(layout.log == [1])
        #expect(layout.byDigest == 2, "the replaced blob is deleted from under its digest")
        #expect(layout.format == StoreInfo.recordLogFormat)
        #expect(try Self.location(store, Self.key(1)) == .digest(KeyDigest(key: Self.key(1))))
        #expect(try await store.remove(Self.key(1)))
        layout = try Self.layout(store)
        #expect(layout.byDigest == 1)
        #expect(try store.get(Self.key(0))?.data == Self.bytes(50))
        #expect(try store.get(Self.key(2))?.data == Self.bytes(2))
        #expect(try await store.verify().isClean)
        try await store.removeAll()
        layout = try Self.layout(store)
        #expect(layout.log.isEmpty && layout.byDigest == 0)
    }

    @Test("verify reports a log blob that no record names, and repair deletes it")
    func orphanedLogBlob() async throws {
        let folder = TemporaryDirectory()
        let store = try PersistentStore(directory: folder.url, configuration: .strictWithPointersInRecords)
        defer { store.close() }
        try await store.put((0..<3).map { NewEntry(key: Self.key($0), data: Self.bytes($0)) })
        let blobs = store.core.blobs
        try blobs.write { txn in
            let log = try #require(blobs.databases.blobLog)
            try BlobLocation.log(99).withKey { key in
                try Self.bytes(9).withUnsafeBytes { try txn.put(log, key: key, value: $0) }
            }
        }
        let report = try await store.verify(repair: true)
        #expect(report.problems == [.orphanBlob(digest: "log#99")])
        #expect(try Self.layout(store).log == [1, 2, 3])
        #expect(try await store.verify().isClean)
        // The next number follows the log's last key.
        try await store.put(NewEntry(key: Self.key(7), data: Self.bytes(7)))
        #expect(try Self.location(store, Self.key(7)) == .log(4))
    }
}
