import Foundation

/// A value guarded by a lock: how this module shares mutable state between threads.
///
/// `@unchecked Sendable` is sound because `state` is only touched inside `withLock`, with `lock` held.
final class Mutex<State>: @unchecked Sendable {
    private let lock = NSLock()
    private var state: State

    init(_ initial: State) {
        state = initial
    }

    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
