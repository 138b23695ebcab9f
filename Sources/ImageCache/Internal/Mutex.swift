#if os(Linux)
import Synchronization
#else
import Foundation
#endif

/// A value guarded by a lock: how this module shares mutable state between threads.
///
/// On Linux the lock is the standard library's `Mutex` (a futex, inlined; `NSLock` cost a dynamic
/// call and a `pthread_mutex` each way, a fifth of a memory hit). Elsewhere it is `NSLock`: the
/// standard library's `Mutex` needs macOS 15 / iOS 18, above the package's deployment targets.
///
/// The state lives behind a pointer rather than in a stored `var`: a class's stored property
/// passed `inout` is checked for exclusive access at run time on every call, which cost as much
/// as the lock itself on a memory hit; the lock already guarantees exclusivity.
///
/// `@unchecked Sendable` is sound because `state` is only touched inside `withLock`, with `lock`
/// held (the standard library's `Mutex` is not used to hold the state itself because it would
/// demand `sending` state and results).
@usableFromInline
final class Mutex<State>: @unchecked Sendable {
    #if os(Linux)
    @usableFromInline let lock = Synchronization.Mutex<Void>(())
    #else
    @usableFromInline let lock = NSLock()
    #endif
    @usableFromInline let state: UnsafeMutablePointer<State>

    @usableFromInline init(_ initial: State) {
        state = .allocate(capacity: 1)
        state.initialize(to: initial)
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
    }

    @inlinable func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        #if os(Linux)
        try lock.withLock { _ in try body(&state.pointee) }
        #else
        lock.lock()
        defer { lock.unlock() }
        return try body(&state.pointee)
        #endif
    }
}
