import Foundation
import TestSupport
import Testing

import CacheStorage

/// Many tasks mixing every operation on one store; CI also runs this suite under ThreadSanitizer.
@Suite("Concurrency")
struct ConcurrencyTests {
    @Test("16 tasks mixing puts, gets, updates, removals, listings and evictions")
    func mixedOperations() async throws {
        let folder = TemporaryDirectory("concurrency")
        var configuration = StoreConfiguration()
        configuration.byteLimit = 2_000_000
        let store = try PersistentStore(directory: folder.url, configuration: configuration)
        let wrongBytes = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<16 {
                group.addTask {
                    var wrong = 0
                    var random = SystemRandomNumberGenerator()
                    for step in 0..<60 {
                        let number = Int.random(in: 0..<100, using: &random)
                        let key = TestPayload.key(prefix: "mix", number: number, length: 1000 + number * 100)
                        switch (task + step) % 6 {
                        case 0, 1:
                            try await store.put(NewEntry(key: key, data: TestPayload.bytes(for: key)!))
                        case 2:
                            if let hit = try store.get(key), hit.data != TestPayload.bytes(for: key) { wrong += 1 }
                        case 3:
                            _ = try await store.updateAttributes(for: key, to: EntryAttributes(etag: "\"\(step)\""))
                        case 4:
                            _ = try await store.remove(key)
                        default:
                            _ = try store.entries(matching: EntryQuery(order: .leastRecentlyUsed, limit: 10))
                            _ = try store.statistics()
                            if step % 12 == 5 { try await store.evict(toBytes: 1_000_000) }
                        }
                    }
                    return wrong
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(wrongBytes == 0)
        #expect(try store.statistics().bytes <= 2_000_000)
        #expect(try await store.verify().isClean)
    }
}
