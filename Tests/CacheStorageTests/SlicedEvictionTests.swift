import Foundation
import TestSupport
import Testing

@testable import CacheStorage

/// Mass eviction runs in slices (`StoreCore.evict`): puts queued meanwhile commit between two
/// slices, the eviction order holds across slices, and the limits hold after every batch.
@Suite("Eviction in slices")
struct SlicedEvictionTests {
    static let batches = 40
    static let perBatch = 1_000

    static func entry(batch: Int, number: Int, length: Int = 100, expiresAt: Date? = nil) -> NewEntry {
        let key = TestPayload.key(prefix: "slice\(batch)", number: number, length: length)
        return NewEntry(key: key, data: TestPayload.bytes(for: key)!, attributes: EntryAttributes(expiresAt: expiresAt))
    }

    /// The batch a key of `entry(batch:number:)` belongs to.
    static func batch(of key: String) -> Int? {
        guard key.hasPrefix("slice"), let slash = key.firstIndex(of: "/") else { return nil }
        return Int(key[key.index(key.startIndex, offsetBy: 5)..<slash])
    }

    /// Scrubbing freed pages (`secure_delete = ON`, the default of some builds, Debian's among
    /// them) wrote every index page an eviction's deletions emptied to the log at each commit.
    @Test("the index's write connection zeroes deleted rows only on pages it writes anyway (secure_delete FAST)")
    func indexLeavesFreedPagesUnscrubbed() throws {
        let folder = TemporaryDirectory()
        let index = try MetadataIndex(path: folder.url.appendingPathComponent("index.sqlite").path)
        defer { index.close() }
        #expect(try index.writer.scalar("PRAGMA secure_delete") == 2, "2 is FAST")
    }

    @Test("a put issued during a mass eviction returns before the eviction does, and the eviction keeps its order")
    func putDuringEviction() async throws {
        let folder = TemporaryDirectory()
        let store = try PersistentStore(directory: folder.url)
        // Batches a few milliseconds apart, so least recently used order is batch order; batch 35
        // expired, so it goes first although it is among the newest.
        let past = Date().addingTimeInterval(-60)
        for batch in 0..<Self.batches {
            try await store.put((0..<Self.perBatch).map { Self.entry(batch: batch, number: $0, expiresAt: batch == 35 ? past : nil) })
            try await Task.sleep(for: .milliseconds(3))
        }
        let total = Self.batches * Self.perBatch
        #expect(try store.statistics().entries == total)
        let target = 5_000
        #expect(total - target > 10 * StoreCore.evictionSliceEntries, "enough slices for a put to fall between two")

        let evictionReturned = Locked(false)
        let eviction = Task {
            defer { evictionReturned.withLock { $0 = true } }
            return try await store.evict(toEntries: target)
        }
        // Once the first slice has committed, a put: it must not wait for the other slices.
        while try store.statistics().entries == total { try await Task.sleep(for: .milliseconds(1)) }
        let late = Self.entry(batch: 99, number: 0)
        try await store.put(late)
        let returnedFirst = !evictionReturned.withLock { $0 }
        let removed = try await eviction.value
        #expect(returnedFirst, "the put waited for the whole eviction")

        // Expired first (batch 35), then least recently used: what is left is the put and the
        // newest unexpired entries, batches 36–39 and all but one of batch 34.
        #expect(removed.entries == total + 1 - target)
        let keys = try store.entries().map(\.key)
        #expect(keys.count == target)
        #expect(keys.contains(late.key))
        let batches = keys.compactMap(Self.batch(of:))
        #expect(!batches.contains(35), "an expired entry survived")
        #expect(batches.allSatisfy { $0 >= 34 && $0 != 35 || $0 == 99 }, "eviction took a newer entry before an older one")
        #expect(batches.filter { $0 == 34 }.count == Self.perBatch - 1)
        #expect(try await store.verify().isClean)
    }

    @Test("the byte limit holds after every put while the eviction that followed the first goes on in slices")
    func limitHoldsBetweenSlices() async throws {
        let folder = TemporaryDirectory()
        var configuration = StoreConfiguration()
        configuration.byteLimit = 1_000_000
        // A low-water mark far below the limit: each eviction removes several slices' worth.
        configuration.lowWaterFraction = 0.05
        let store = try PersistentStore(directory: folder.url, configuration: configuration)
        var evictions = 0
        var previous = 0
        for batch in 0..<30 {
            // 100 KB a batch: the limit is passed every tenth batch, and the eviction that follows
            // (about 1,900 entries) takes two slices, the second after this put has returned.
            try await store.put((0..<200).map { Self.entry(batch: batch, number: $0, length: 500) })
            let stats = try store.statistics()
            #expect(stats.bytes <= configuration.byteLimit, "after batch \(batch): \(stats.bytes) bytes")
            if stats.bytes < previous { evictions += 1 }
            previous = stats.bytes
        }
        #expect(evictions >= 2, "the limit was passed and evicted from more than once")
        try await store.flush()
        #expect(try await store.verify().isClean)
    }
}
