import Synchronization

/// A value guarded by a lock: how this module shares mutable state between threads.
///
/// The lock is the standard library's `Mutex` (a futex on Linux, inlined; `NSLock` cost a dynamic
/// call and a `pthread_mutex` each way, a fifth of a memory hit). It guards no value of its own
/// because it would demand `sending` state and results; `@unchecked Sendable` is sound because
/// `state` is only touched inside `withLock`, with `lock` held.
final class Mutex<State>: @unchecked Sendable {
    private let lock = Synchronization.Mutex<Void>(())
    private var state: State

    init(_ initial: State) {
        state = initial
    }

    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        try lock.withLock { _ in try body(&state) }
    }
}
