import Foundation

/// One load that several identical requests wait on: the coalescing unit.
///
/// Waiters register a continuation; the load's result resumes them all. A waiter that is cancelled
/// leaves at once with `CancellationError`; when the last one leaves, the load itself is cancelled.
/// State is behind `state`'s lock.
final class SharedLoad: Sendable {
    typealias ProgressHandler = @Sendable (_ receivedBytes: Int, _ expectedBytes: Int?) -> Void

    private struct State {
        var waiters: [Int: CheckedContinuation<ImageResponse, any Error>] = [:]
        var progress: [Int: ProgressHandler] = [:]
        var departed: Set<Int> = []
        var result: Result<ImageResponse, any Error>?
        var work: Task<Void, Never>?
        var joined = 0
    }

    private let state = Mutex(State())

    /// Callers waiting on the load now.
    var waiterCount: Int { state.withLock { $0.waiters.count } }

    func start(_ work: Task<Void, Never>) {
        state.withLock { $0.work = work }
    }

    /// Waits for the result; cancelling the calling task leaves the load.
    func wait(progress: ProgressHandler?) async throws -> ImageResponse {
        // Waiters are numbered in joining order (a `UUID` cost a `getrandom` system call).
        let id = state.withLock { state in
            state.joined += 1
            return state.joined
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let immediate: Result<ImageResponse, any Error>? = state.withLock { state in
                    if let result = state.result { return result }
                    if state.departed.contains(id) { return .failure(CancellationError()) }
                    state.waiters[id] = continuation
                    if let progress { state.progress[id] = progress }
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            leave(id)
        }
    }

    private func leave(_ id: Int) {
        let (continuation, abandoned): (CheckedContinuation<ImageResponse, any Error>?, Task<Void, Never>?) = state.withLock { state in
            state.progress[id] = nil
            guard let continuation = state.waiters.removeValue(forKey: id) else {
                state.departed.insert(id)
                return (nil, nil)
            }
            let abandoned = state.waiters.isEmpty && state.result == nil ? state.work : nil
            return (continuation, abandoned)
        }
        continuation?.resume(throwing: CancellationError())
        abandoned?.cancel()
    }

    /// Delivers the result to every waiter.
    func finish(_ result: Result<ImageResponse, any Error>) {
        let waiters = state.withLock { state in
            state.result = result
            state.progress.removeAll()
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    /// Passes download progress to every waiter that asked for it.
    func report(receivedBytes: Int, expectedBytes: Int?) {
        let handlers = state.withLock { Array($0.progress.values) }
        for handler in handlers { handler(receivedBytes, expectedBytes) }
    }
}
