import Foundation
import Testing

@testable import HTTPCaching
@testable import ImageCache

/// The limit on concurrent exchanges, alone: who gets a slot, in which order, and that none is lost.
@Suite("Fetch slots")
struct FetchSlotsTests {
    @Test("past the limit an exchange waits, and a released slot goes to it")
    func limit() async throws {
        let slots = FetchSlots(limit: 2)
        let first = try await slots.acquire()
        let second = try await slots.acquire()
        let third = Task { try await slots.acquire() }
        try await eventually { slots.waitingCount == 1 }
        #expect(slots.inUse == 2)
        first.release()
        let handedOver = try await third.value
        #expect(slots.waitingCount == 0)
        #expect(slots.inUse == 2)
        first.release()  // a second release gives nothing back
        #expect(slots.inUse == 2)
        second.release()
        handedOver.release()
        #expect(slots.inUse == 0)
    }

    @Test("waiting exchanges get slots by task priority, then in order of arrival")
    func priorityOrder() async throws {
        let slots = FetchSlots(limit: 1)
        let held = try await slots.acquire()
        let order = Mutex<[String]>([])
        var waiters: [Task<Void, any Error>] = []
        for (name, priority) in [("low 1", TaskPriority.low), ("low 2", .low), ("high", .high), ("medium", .medium)] {
            let queuedBefore = slots.waitingCount
            waiters.append(
                Task(priority: priority) {
                    let slot = try await slots.acquire()
                    order.withLock { $0.append(name) }
                    slot.release()
                })
            // Each joins the queue before the next is made, so arrival order is known.
            try await eventually { slots.waitingCount == queuedBefore + 1 }
        }
        held.release()
        for waiter in waiters { try await waiter.value }
        #expect(order.withLock { $0 } == ["high", "medium", "low 1", "low 2"])
        #expect(slots.inUse == 0)
    }

    @Test("a cancelled waiter leaves the queue at once and takes no slot")
    func cancellation() async throws {
        let slots = FetchSlots(limit: 1)
        let held = try await slots.acquire()
        let waiting = Task { try await slots.acquire() }
        try await eventually { slots.waitingCount == 1 }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(slots.waitingCount == 0)
        // Already cancelled when it asks: refused without queueing.
        let late = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await slots.acquire()
        }
        await #expect(throws: CancellationError.self) { try await late.value }
        #expect(slots.waitingCount == 0)
        held.release()
        #expect(slots.inUse == 0)
    }

    @Test("a slot dropped without a release is given back")
    func droppedSlot() async throws {
        let slots = FetchSlots(limit: 1)
        _ = try await slots.acquire()
        #expect(slots.inUse == 0)
        let kept = try await slots.acquire()
        #expect(slots.inUse == 1)
        kept.release()
    }
}

/// Polls `condition` every 10 ms for up to 10 s; fails the test if it never holds.
func eventually(_ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    for _ in 0..<1_000 {
        if condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    Issue.record("the condition never held", sourceLocation: sourceLocation)
}
