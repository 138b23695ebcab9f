#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a lock: how this module shares mutable state between threads.
///
/// The lock is a `pthread_mutex_t` called directly (no `NSLock` in between, whose dynamic call
/// each way is a visible part of a memory hit). The standard library's futex `Mutex` is a little
/// cheaper, but its contended path takes the lock inside the standard library, out of
/// ThreadSanitizer's sight, so every contended section was reported as a data race and the
/// sanitizer could no longer tell us about real ones; it also needs macOS 15 / iOS 18, above the
/// package's deployment targets. `pthread_mutex_lock` is intercepted by the sanitizer.
///
/// The lock and the state live behind pointers rather than in stored properties: a mutex must
/// not move once initialised, and a class's stored `var` passed `inout` is checked for exclusive
/// access at run time on every call, a second price for what the lock already guarantees.
///
/// Sendable only when `State` is (the lock cannot make a non-Sendable value safe to share);
/// `@unchecked` is sound because `state` is only touched inside `withLock`, with `lock` held.
@usableFromInline
package final class Mutex<State> {
    @usableFromInline let lock: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline let state: UnsafeMutablePointer<State>

    @usableFromInline package init(_ initial: State) {
        lock = .allocate(capacity: 1)
        lock.initialize(to: pthread_mutex_t())
        // A default mutex cannot fail to initialise on the platforms this builds for.
        pthread_mutex_init(lock, nil)
        state = .allocate(capacity: 1)
        state.initialize(to: initial)
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deinitialize(count: 1)
        lock.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    @inlinable package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return try body(&state.pointee)
    }
}

extension Mutex: @unchecked Sendable where State: Sendable {}
