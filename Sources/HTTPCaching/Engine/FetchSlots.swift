/// A limit on concurrent exchanges with origins; waiting exchanges get slots by task priority,
/// then in order of arrival.
///
/// A lock, not an actor: a slot is taken and given back on every fetch, and each actor call from
/// the fetching task was a switch of executor; giving a slot back is synchronous, so the end of a
/// body can release it where it happens. State is behind `state`'s lock.
final class FetchSlots: Sendable {
    /// A slot held by one exchange. ``release()`` gives it back; later calls do nothing.
    final class Slot: Sendable {
        private let slots: FetchSlots
        private let released = Mutex(false)

        fileprivate init(_ slots: FetchSlots) {
            self.slots = slots
        }

        /// A slot nobody released (an error between taking it and its exchange) is not lost.
        deinit {
            release()
        }

        func release() {
            let first = released.withLock { released in
                defer { released = true }
                return !released
            }
            if first { slots.giveBack() }
        }
    }

    private struct Waiter {
        let id: Int
        let priority: TaskPriority
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var inUse = 0
        var waiting: [Waiter] = []
        var nextID = 0
    }

    private let limit: Int
    private let state = Mutex(State())

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Waits for a slot at the calling task's priority.
    /// - Throws: `CancellationError` when the task is cancelled while waiting.
    func acquire() async throws -> Slot {
        let queued: Int? = state.withLock { state in
            if state.inUse < limit {
                state.inUse += 1
                return nil
            }
            state.nextID += 1
            return state.nextID
        }
        guard let id = queued else { return Slot(self) }
        let priority = Task.currentPriority
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // Checked under the lock: a cancellation before this point finds no waiter to remove,
                // so it must be seen here; one after it finds the waiter.
                let cancelled = state.withLock { state in
                    if Task.isCancelled { return true }
                    state.waiting.append(Waiter(id: id, priority: priority, continuation: continuation))
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let abandoned = state.withLock { state -> Waiter? in
                guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiting.remove(at: index)
            }
            abandoned?.continuation.resume(throwing: CancellationError())
        }
        return Slot(self)
    }

    /// Exchanges holding a slot now.
    var inUse: Int { state.withLock { $0.inUse } }

    /// Exchanges waiting for a slot now.
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Hands a returned slot to the most urgent waiter, or frees it.
    private func giveBack() {
        let next = state.withLock { state -> Waiter? in
            let mostUrgent = state.waiting.indices.max { lhs, rhs in
                let (left, right) = (state.waiting[lhs], state.waiting[rhs])
                return left.priority < right.priority || (left.priority == right.priority && left.id > right.id)
            }
            guard let index = mostUrgent else {
                state.inUse -= 1
                return nil
            }
            return state.waiting.remove(at: index)
        }
        next?.continuation.resume()
    }
}
