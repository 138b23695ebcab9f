import Foundation
import Testing

@testable import CacheStorage

/// Reads wait in memory to be persisted; how many may wait does not grow with the store.
@Suite("Access log")
struct AccessLogTests {
    static func row(_ number: Int) -> IndexRowKey {
        IndexRowKey(storedAt: Int64(number), digest: KeyDigest(key: "https://cdn.example.com/read/\(number).jpg"))
    }

    @Test("at most its capacity of distinct entries wait; those waiting still move, and every hit counts")
    func boundedByCapacity() {
        let log = AccessLog()
        let extra = 100
        for number in 0..<(AccessLog.capacity + extra) {
            _ = log.recordHit(Self.row(number), at: 1_000)
        }
        #expect(log.recordHit(Self.row(0), at: 2_000) == AccessLog.capacity)
        log.recordAccess(Self.row(AccessLog.capacity + 1), at: 2_000)
        #expect(log.pendingAccess(Self.row(AccessLog.capacity + 1)) == nil)
        let drained = log.drain()
        #expect(drained.accesses.count == AccessLog.capacity)
        #expect(drained.accesses[Self.row(0)] == 2_000)
        #expect(drained.hits == Int64(AccessLog.capacity + extra + 1))
        // Drained, there is room again.
        _ = log.recordHit(Self.row(AccessLog.capacity + 5), at: 3_000)
        #expect(log.pendingAccess(Self.row(AccessLog.capacity + 5)) == 3_000)
    }
}
