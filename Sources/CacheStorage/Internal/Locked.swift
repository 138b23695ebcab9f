import Foundation

/// A value guarded by a mutex: the one primitive through which this module shares mutable state.
///
/// `@unchecked Sendable` is sound because `state` is only read or written inside `withLock`,
/// while `lock` is held.
final class Locked<State>: @unchecked Sendable {
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
