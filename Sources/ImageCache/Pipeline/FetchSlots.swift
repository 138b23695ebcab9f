/// A limit on concurrent network fetches; waiting fetches get slots by priority, then in order.
actor FetchSlots {
    private struct Waiter {
        let id: Int
        let priority: ImageRequest.Priority
        let continuation: CheckedContinuation<Void, any Error>
    }

    private let limit: Int
    private var inUse = 0
    private var waiting: [Waiter] = []
    private var nextID = 0

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Waits for a slot; throws `CancellationError` when the task is cancelled while waiting.
    func acquire(priority: ImageRequest.Priority) async throws {
        if inUse < limit {
            inUse += 1
            return
        }
        let id = nextID
        nextID += 1
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiting.append(Waiter(id: id, priority: priority, continuation: continuation))
            }
        } onCancel: {
            Task { await self.abandon(id) }
        }
    }

    /// Returns a slot, handing it to the most urgent waiter.
    func release() {
        guard let index = waiting.indices.max(by: { waiting[$0].priority < waiting[$1].priority || (waiting[$0].priority == waiting[$1].priority && waiting[$0].id > waiting[$1].id) }) else {
            inUse -= 1
            return
        }
        waiting.remove(at: index).continuation.resume()
    }

    private func abandon(_ id: Int) {
        guard let index = waiting.firstIndex(where: { $0.id == id }) else { return }
        waiting.remove(at: index).continuation.resume(throwing: CancellationError())
    }
}
