import Foundation
import TestSupport
import Testing

@testable import CacheStorage

@Suite("Limits and eviction")
struct LimitsTests {
    static func entry(_ number: Int, length: Int = 30_000, expiresAt: Date? = nil) -> NewEntry {
        let key = TestPayload.key(prefix: "limits", number: number, length: length)
        return NewEntry(key: key, data: TestPayload.bytes(for: key)!, attributes: EntryAttributes(expiresAt: expiresAt))
    }

    static func configuration(bytes: Int, entries: Int? = nil) -> StoreConfiguration {
        var configuration = StoreConfiguration()
        configuration.byteLimit = bytes
        configuration.entryLimit = entries
        return configuration
    }

    @Test("the byte limit holds after every batch, single puts and large batches alike")
    func byteLimitHolds() async throws {
        let folder = TemporaryDirectory()
        let store = try PersistentStore(directory: folder.url, configuration: Self.configuration(bytes: 1_000_000))
        for number in 0..<80 {
            try await store.put(Self.entry(number))
            let stats = try store.statistics()
            #expect(stats.bytes <= 1_000_000, "after put \(number): \(stats.bytes) bytes")
        }
        // One batch of 1.5 MB: still within the limit once the batch has committed.
        try await store.put((100..<150).map { Self.entry($0) })
        let stats = try store.statistics()
        #expect(stats.bytes <= 1_000_000)
        #expect(stats.bytes >= 600_000, "eviction went far below the low-water mark: \(stats.bytes)")
        #expect(try await store.verify().isClean)
    }

    @Test("the entry-count limit holds and evicts to its low-water mark")
    func entryLimitHolds() async throws {
        let folder = TemporaryDirectory()
        let store = try PersistentStore(
            directory: folder.url, configuration: Self.configuration(bytes: 100_000_000, entries: 20))
        for number in 0..<45 {
            try await store.put(Self.entry(number, length: 100))
            #expect(try store.statistics().entries <= 20)
        }
        #expect(try store.statistics().entries >= 18)
    }

    @Test("recently read entries survive eviction; the least recently used go")
    func leastRecentlyUsedOrder() async throws {
        let folder = TemporaryDirectory()
        let store = try PersistentStore(directory: folder.url, configuration: Self.configuration(bytes: 1_000_000))
        for number in 0..<30 {
            try await store.put(Self.entry(number))
            try await Task.sleep(for: .milliseconds(2))
        }
        // Read the ten oldest: they become the most recently used.
        for number in 0..<10 { #expect(try store.get(Self.entry(number).key) != nil) }
        try await Task.sleep(for: .milliseconds(2))
        for number in 30..<40 { try await store.put(Self.entry(number)) }
        for number in 0..<10 {
            #expect(try store.get(Self.entry(number).key) != nil, "recently read entry \(number) was evicted")
        }
        #expect(try store.get(Self.entry(10).key) == nil, "the least recently used entry survived")
        for number in 30..<40 { #expect(try store.get(Self.entry(number).key) != nil) }
    }

    @Test("expired entries are evicted before older unexpired ones")
    func expiredFirst() async throws {
        let folder = TemporaryDirectory()
        let store = try PersistentStore(directory: folder.url, configuration: Self.configuration(bytes: 1_000_000))
        for number in 0..<20 { try await store.put(Self.entry(number)) }
        let past = Date().addingTimeInterval(-60)
        for number in 20..<30 { try await store.put(Self.entry(number, expiresAt: past)) }
        try await store.put((30..<35).map { Self.entry($0) })
        // Over the limit by five entries: whatever eviction took, it took only expired ones.
        let evicted = try (0..<35).filter { try store.get(Self.entry($0).key) == nil }
        #expect(!evicted.isEmpty, "nothing was evicted")
        #expect(evicted.allSatisfy { (20..<30).contains($0) }, "unexpired entries were evicted: \(evicted)")
        #expect(try store.entries(matching: EntryQuery(expiredAt: Date())).count == 10 - evicted.count)
    }

    @Test("explicit eviction reports what it removed")
    func explicitEviction() async throws {
        let folder = TemporaryDirectory()
        let store = try PersistentStore(directory: folder.url)
        try await store.put((0..<10).map { Self.entry($0, length: 1000) })
        let removed = try await store.evict(toBytes: 5000)
        #expect(removed.entries == 5)
        #expect(removed.bytes == 5000)
        #expect(try store.statistics().bytes == 5000)
        #expect(try await store.evict(toEntries: 2).entries == 3)
    }

    @Test("a full LMDB map grows instead of failing the put")
    func mapGrows() async throws {
        let folder = TemporaryDirectory()
        var configuration = Self.configuration(bytes: 500_000_000)
        configuration.initialMapBytes = 1 << 20
        let store = try PersistentStore(directory: folder.url, configuration: configuration)
        let before = try store.statistics().mapBytes
        for number in 0..<40 { try await store.put(Self.entry(number, length: 256 * 1024)) }
        let stats = try store.statistics()
        #expect(stats.entries == 40)
        #expect(stats.mapBytes > before)
        for number in 0..<40 { #expect(try store.get(Self.entry(number, length: 256 * 1024).key) != nil) }
    }
}

extension LimitsTests {
    @Test("extreme limits open and work: byteLimit and entryLimit at Int.max, a zero-byte limit evicts everything")
    func extremeLimits() async throws {
        let folder = TemporaryDirectory("extreme-limits")
        var configuration = StoreConfiguration()
        configuration.byteLimit = Int.max
        configuration.entryLimit = Int.max
        do {
            let store = try PersistentStore(directory: folder.url, configuration: configuration)
            try await store.put(NewEntry(key: "a", data: Data(repeating: 1, count: 1000)))
            #expect(try store.get("a") != nil)
            #expect(try store.statistics().effectiveByteLimit > 0)
            store.close()
        }
        configuration.byteLimit = 0
        configuration.entryLimit = nil
        let store = try PersistentStore(directory: folder.url, configuration: configuration)
        defer { store.close() }
        try await store.put(NewEntry(key: "b", data: Data(repeating: 2, count: 1000)))
        #expect(try store.statistics().entries == 0)
    }
}
