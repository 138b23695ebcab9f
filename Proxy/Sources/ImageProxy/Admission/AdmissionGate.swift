import Synchronization

/// Bounds the work a proxy takes on: at most ``capacity`` requests fetch or decode at once, at
/// most ``queueLimit`` wait for a turn, and a request past both is turned away at once (the proxy
/// answers 503 with `Retry-After`) instead of queueing without bound while its client gives up.
///
/// Answers from memory never pass the gate: they cost no fetch and no decode.
public final class AdmissionGate: Sendable {
    private struct State {
        var running = 0
        var waiting: [(id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
        var nextID = 0
    }

    /// Requests working at once.
    public let capacity: Int
    /// Requests waiting for a turn, at most.
    public let queueLimit: Int
    private let state = Mutex(State())

    /// A gate for `capacity` at once and `queueLimit` waiting.
    public init(capacity: Int, queueLimit: Int) {
        self.capacity = max(1, capacity)
        self.queueLimit = max(0, queueLimit)
    }

    /// Why a request was not let in.
    public struct Overloaded: Error, Sendable, CustomStringConvertible {
        public var description: String { "The proxy is at its limit of work in progress and waiting; try again shortly." }
    }

    /// Runs `work` once a turn is free.
    /// - Throws: ``Overloaded`` when the queue is full, or what `work` throws.
    public func run<Result: Sendable>(_ work: () async throws -> Result) async throws -> Result {
        try await enter()
        defer { leave() }
        return try await work()
    }

    /// Requests working and waiting now.
    public var load: (running: Int, waiting: Int) { state.withLock { ($0.running, $0.waiting.count) } }

    private func enter() async throws {
        enum Decision { case admitted, queued(Int), refused }
        let id = state.withLock { state -> Int in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let decision = state.withLock { state -> Decision in
                    if state.running < capacity {
                        state.running += 1
                        return .admitted
                    }
                    guard state.waiting.count < queueLimit else { return .refused }
                    state.waiting.append((id, continuation))
                    return .queued(id)
                }
                switch decision {
                case .admitted: continuation.resume()
                case .refused: continuation.resume(throwing: Overloaded())
                case .queued: break
                }
            }
        } onCancel: {
            let removed = state.withLock { state in
                state.waiting.firstIndex { $0.id == id }.map { state.waiting.remove(at: $0).continuation }
            }
            removed?.resume(throwing: CancellationError())
        }
    }

    private func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard !state.waiting.isEmpty else {
                state.running -= 1
                return nil
            }
            return state.waiting.removeFirst().continuation  // the turn passes on; `running` stays
        }
        next?.resume()
    }
}
