import Foundation
import TestSupport
import Testing

@testable import CacheStorage

/// A store of many small entries (``TestScale/manyEntries``), as a feed of thumbnails fills one: it opens strictly, every
/// entry verifies, and a mass eviction takes exactly the least recently used half, leaving the
/// index, the records and the blob log in agreement. (Rates are measured by `cachectl bench`.)
@Suite("Many small entries")
struct ManyEntriesTests {
    static let count = TestScale.current.manyEntries
    static let size = 256

    static func key(_ number: Int) -> String { "https://cdn.example.com/feed/\(number).jpg" }
    static func bytes(_ number: Int) -> Data { Data(progression: size, start: number &* 7, step: 1) }

    @Test("many small entries (TestScale.manyEntries) open strictly, verify, and evict exactly the least recently used half")
    func manySmallEntries() async throws {
        let folder = TemporaryDirectory()
        let configuration = TestStores.strict()
        do {
            let store = try PersistentStore(directory: folder.url, configuration: configuration)
            for start in stride(from: 0, to: Self.count, by: 2_000) {
                try await store.put((start..<start + 2_000).map { NewEntry(key: Self.key($0), data: Self.bytes($0)) })
            }
            // The oldest entry is read, so it is no longer the least recently used.
            try await Task.sleep(for: .milliseconds(5))
            #expect(try store.get(Self.key(0))?.data == Self.bytes(0))
            store.close()
        }
        let store = try PersistentStore(directory: folder.url, configuration: configuration)
        defer { store.close() }
        let statistics = try store.statistics()
        #expect(statistics.entries == Self.count)
        #expect(statistics.bytes == Self.count * Self.size)
        let report = try await store.verify()
        #expect(report.isClean)
        #expect(report.entriesChecked == Self.count)
        #expect(report.bytesChecked == Self.count * Self.size)

        let removed = try await store.evict(toBytes: Self.count / 2 * Self.size)
        #expect(removed.entries == Self.count / 2)
        #expect(removed.bytes == Self.count / 2 * Self.size)
        #expect(try store.statistics().entries == Self.count / 2)
        #expect(try store.contains(Self.key(0)), "the entry read last was evicted")
        // Entries stored in the same millisecond are equally old: the boundary may fall among them.
        for number in stride(from: 1, to: Self.count / 2 - 1_000, by: 997) {
            #expect(try !store.contains(Self.key(number)), "entry \(number) outlived newer ones")
        }
        for number in stride(from: Self.count / 2 + 1_000, to: Self.count, by: 997) {
            #expect(try store.peek(Self.key(number))?.data == Self.bytes(number), "entry \(number) was evicted")
        }
        // The eviction deleted the numbers its slices left in records (see RecordLocation): every
        // pointer left there names an entry's record, and with the pointer tail's pairs that name
        // one (see PointerTailIndex) they count the entries.
        let databases = store.core.blobs.databases
        let layout = try store.core.blobs.read { txn in
            var live = (records: 0, stale: 0, digests: Set<KeyDigest>())
            try txn.forEach(databases.records) { key, _ in
                let digest = try #require(KeyDigest(bytes: key))
                if try txn.record(of: digest, databases) != nil {
                    live.records += 1
                    live.digests.insert(digest)
                } else {
                    live.stale += 1
                }
                return true
            }
            try txn.forEach(databases.pointerTail) { key, value in
                let number = try #require(BlobLocation.number(fromKey: key))
                let digest = try #require(KeyDigest(bytes: value))
                if try txn.loggedRecord(of: digest, number: number, databases) != nil { live.digests.insert(digest) }
                return true
            }
            return (live: live,
                    recordLog: try txn.count(databases.recordLog),
                    log: try txn.count(databases.blobLog))
        }
        #expect(layout.live.stale == 0)
        #expect(layout.live.records > 0, "no round merged the tail")
        #expect(layout.live.digests.count == Self.count / 2)
        #expect(layout.recordLog == Self.count / 2)
        #expect(layout.log == 0, "small entries' bytes follow their records")
        #expect(try await store.verify().isClean)
        print("many small entries (\(TestScale.current)): \(Self.count) stored, verified and half evicted")
    }
}
