import Foundation
import TestSupport
import Testing

@testable import CacheStorage

/// Blobs live in the blob log under numbers given in the order they were written (`BlobLocation`).
/// Every path that ends an entry's bytes must delete them there, or the file grows with blobs
/// nothing names.
@Suite("Blob log")
struct BlobLogTests {
    static func key(_ number: Int) -> String { "https://cdn.example.com/log/\(number).jpg" }
    /// Above `BlobLocation.withRecordLimit`: bytes that go to the blob log.
    static func bytes(_ number: Int, size: Int = 20_000) -> Data { Data(progression: size, start: number, step: 31) }

    /// The keys in the blob log.
    static func logNumbers(_ store: PersistentStore) throws -> [UInt64] {
        let blobs = store.core.blobs
        return try blobs.read { txn in
            var numbers: [UInt64] = []
            try txn.forEach(blobs.databases.blobLog) { key, _ in
                numbers.append(BlobLocation.number(fromKey: key) ?? 0)
                return true
            }
            return numbers
        }
    }

    static func location(_ store: PersistentStore, _ key: String) throws -> BlobLocation? {
        let blobs = store.core.blobs
        return try blobs.read { try $0.blobLocation(of: KeyDigest(key: key), blobs.databases) }
    }

    @Test("puts append to the log; new bytes, a removal and an eviction delete there; new attributes keep the blob")
    func logFollowsEntries() async throws {
        let folder = TemporaryDirectory()
        let store = try PersistentStore(directory: folder.url, configuration: .strictWithPointersInRecords)
        defer { store.close() }
        try await store.put((0..<10).map { NewEntry(key: Self.key($0), data: Self.bytes($0)) })
        #expect(try Self.logNumbers(store) == Array(1...10))
        #expect(try Self.location(store, Self.key(3)) == .log(4))

        #expect(try await store.updateAttributes(for: Self.key(0), to: EntryAttributes(etag: "\"v2\"")))
        #expect(try store.get(Self.key(0))?.data == Self.bytes(0))
        #expect(try Self.location(store, Self.key(0)) == .log(1))

        try await store.put(NewEntry(key: Self.key(1), data: Self.bytes(100, size: 17_000)))
        #expect(try Self.location(store, Self.key(1)) == .log(11))
        #expect(try store.get(Self.key(1))?.data == Self.bytes(100, size: 17_000))
        #expect(try await store.remove(Self.key(2)))
        #expect(try Self.logNumbers(store) == [1, 4, 5, 6, 7, 8, 9, 10, 11])

        let removed = try await store.evict(toBytes: 5 * 20_000)
        #expect(removed.entries == 4)
        let statistics = try store.statistics()
        #expect(try Self.logNumbers(store).count == statistics.entries)
        #expect(statistics.entries == 5)
        #expect(try await store.verify().isClean)
        for number in [0, 1, 3, 4, 5, 6, 7, 8, 9] where try store.contains(Self.key(number)) {
            #expect(try store.peek(Self.key(number))?.data == (number == 1 ? Self.bytes(100, size: 17_000) : Self.bytes(number)))
        }
    }

    @Test("verify reports a log blob that no record names, and repair deletes it")
    func orphanedLogBlob() async throws {
        let folder = TemporaryDirectory()
        let store = try PersistentStore(directory: folder.url, configuration: .strictWithPointersInRecords)
        defer { store.close() }
        try await store.put((0..<3).map { NewEntry(key: Self.key($0), data: Self.bytes($0)) })
        let blobs = store.core.blobs
        try blobs.write { txn in
            try BlobLocation.log(99).withKey { key in
                try Self.bytes(9).withUnsafeBytes { try txn.put(blobs.databases.blobLog, key: key, value: $0) }
            }
        }
        let report = try await store.verify(repair: true)
        #expect(report.problems == [.orphanBlob(digest: "log#99")])
        #expect(try Self.logNumbers(store) == [1, 2, 3])
        #expect(try await store.verify().isClean)
        // The next number follows the log's last key.
        try await store.put(NewEntry(key: Self.key(7), data: Self.bytes(7)))
        #expect(try Self.location(store, Self.key(7)) == .log(4))
    }
}
