import Foundation

/// A value guarded by a mutex: the one primitive through which this module (and the package's
/// test support) shares mutable state.
///
/// `@unchecked Sendable` is sound because `state` is only read or written inside `withLock`,
/// while `lock` is held.
package final class Locked<State>: @unchecked Sendable {
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
