import Foundation

/// A value guarded by a mutex: the one primitive through which this module (and the package's
/// test support) shares mutable state.
///
/// Sendable only when `State` is: the lock keeps threads from touching `state` at once, but it
/// cannot make a non-Sendable value safe to hand out of `withLock` to another thread.
/// `@unchecked` is sound because `state` is only read or written inside `withLock`, while `lock` is held.
package final class Locked<State> {
    private let lock = NSLock()
    private var state: State

    package init(_ initial: State) {
        state = initial
    }

    package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}

extension Locked: @unchecked Sendable where State: Sendable {}
