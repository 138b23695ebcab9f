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
        #expect(log.recordHit(Self.row(0), at: 2_000) == (AccessLog.capacity, false))
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

    @Test("a partial drain leaves the rest in the backlog: still pending, newer reads win, and it counts toward the capacity")
    func backlogAfterAPartialDrain() {
        let log = AccessLog()
        for number in 0..<10 { _ = log.recordHit(Self.row(number), at: 1_000 + Int64(number)) }
        let first = log.drain(limit: 4)
        #expect(first.accesses.count == 4 && first.remaining == 6)
        #expect(first.hits == 10)
        let left = (0..<10).filter { first.accesses[Self.row($0)] == nil }
        #expect(left.count == 6)
        // Waiting in the backlog: still pending, and a newer read of one of them wins.
        for number in left { #expect(log.pendingAccess(Self.row(number)) == 1_000 + Int64(number)) }
        #expect(log.recordHit(Self.row(left[0]), at: 5_000).waiting == 7)
        #expect(log.pendingAccess(Self.row(left[0])) == 5_000)
        let second = log.drain()
        #expect(second.accesses.count == 6 && second.remaining == 0)
        #expect(second.accesses[Self.row(left[0])] == 5_000)
        #expect(second.accesses[Self.row(left[1])] == 1_000 + Int64(left[1]))
        #expect(second.hits == 1)
        for number in 0..<10 { #expect(log.pendingAccess(Self.row(number)) == nil) }

        // The backlog counts toward the capacity until it is handed over.
        for number in 0..<AccessLog.capacity { _ = log.recordHit(Self.row(number), at: 7_000) }
        #expect(log.drain(limit: 1).remaining == AccessLog.capacity - 1)
        #expect(log.recordHit(Self.row(AccessLog.capacity), at: 8_000) == (AccessLog.capacity, true))
        #expect(log.recordHit(Self.row(AccessLog.capacity + 1), at: 8_000) == (AccessLog.capacity, false))
        #expect(log.pendingAccess(Self.row(AccessLog.capacity + 1)) == nil)
        #expect(log.drain().accesses.count == AccessLog.capacity)
    }

    @Test("a read says whether it added an entry to wait, and the log knows when the newest read came")
    func newEntriesAndNewestRead() {
        let log = AccessLog()
        #expect(log.waiting() == (0, 0))
        #expect(log.recordHit(Self.row(1), at: 1_000) == (1, true))
        #expect(log.recordHit(Self.row(1), at: 1_200) == (1, false))
        #expect(log.recordHit(Self.row(2), at: 1_100) == (2, true))
        // The newest recorded, not the latest time: a clock that went back is seen as it is.
        #expect(log.waiting() == (2, 1_100))
        log.recordAccess(Self.row(3), at: 1_300)
        #expect(log.waiting() == (3, 1_300))
        _ = log.drain()
        #expect(log.waiting().count == 0)
    }
}
