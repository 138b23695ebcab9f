#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a lock: the one lock through which this module (and the package's test
/// support) shares mutable state.
///
/// `withLock` holds the lock alone, to read and change the value; `withSharedLock` reads it. By
/// default (``Sharing/exclusive``) a shared hold is alone too: the lock is a mutex, the cheapest
/// to take, for state every holder changes or holds only briefly. With ``Sharing/sharedReads`` it
/// is a reader–writer lock, and shared holders run beside each other: for state read on every
/// operation and changed rarely, such as LMDB's environment, which every transaction reads and only
/// a map resize replaces. Taking a reader–writer lock alone costs about twice a mutex, so only
/// state that readers hold for a while asks for it. Neither kind may be taken again by a thread
/// that holds it alone.
///
/// Sendable only when `State` is: the lock keeps threads from touching `state` at once, but it
/// cannot make a non-Sendable value safe to hand out of `withLock` to another thread.
/// `@unchecked` is sound because `state` is only read inside `withSharedLock` and written inside
/// `withLock`, while the lock is held; the lock lives at a stable heap address.
package final class Locked<State> {
    /// Whether readers share the lock.
    package enum Sharing: Sendable {
        /// One holder at a time, readers too (a mutex). The default.
        case exclusive
        /// Readers (`withSharedLock`) beside each other, writers alone (a reader–writer lock).
        case sharedReads
    }

    private enum Primitive {
        case mutex(UnsafeMutablePointer<pthread_mutex_t>)
        case readerWriter(UnsafeMutablePointer<pthread_rwlock_t>)
    }

    private let primitive: Primitive
    private var state: State

    package init(_ initial: State, sharing: Sharing = .exclusive) {
        state = initial
        switch sharing {
        case .exclusive:
            let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
            mutex.initialize(to: pthread_mutex_t())
            pthread_mutex_init(mutex, nil)
            primitive = .mutex(mutex)
        case .sharedReads:
            let lock = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)
            lock.initialize(to: pthread_rwlock_t())
            pthread_rwlock_init(lock, nil)
            primitive = .readerWriter(lock)
        }
    }

    deinit {
        switch primitive {
        case let .mutex(mutex):
            pthread_mutex_destroy(mutex)
            mutex.deallocate()
        case let .readerWriter(lock):
            pthread_rwlock_destroy(lock)
            lock.deallocate()
        }
    }

    /// Runs `body` with the value, holding the lock alone.
    package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        switch primitive {
        case let .mutex(mutex):
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&state)
        case let .readerWriter(lock):
            pthread_rwlock_wrlock(lock)
            defer { pthread_rwlock_unlock(lock) }
            return try body(&state)
        }
    }

    /// Runs `body` with the value, holding the lock alone, if the lock is free at once; nil
    /// without running it when another thread holds it. For a thread that must never wait on
    /// work another thread does under the lock.
    package func withLockIfAvailable<Result>(_ body: (inout State) throws -> Result) rethrows -> Result? {
        switch primitive {
        case let .mutex(mutex):
            guard pthread_mutex_trylock(mutex) == 0 else { return nil }
            defer { pthread_mutex_unlock(mutex) }
            return try body(&state)
        case let .readerWriter(lock):
            guard pthread_rwlock_trywrlock(lock) == 0 else { return nil }
            defer { pthread_rwlock_unlock(lock) }
            return try body(&state)
        }
    }

    /// Runs `body` with the value to read, holding the lock shared (see ``Sharing``).
    package func withSharedLock<Result>(_ body: (State) throws -> Result) rethrows -> Result {
        switch primitive {
        case let .mutex(mutex):
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(state)
        case let .readerWriter(lock):
            pthread_rwlock_rdlock(lock)
            defer { pthread_rwlock_unlock(lock) }
            return try body(state)
        }
    }
}

extension Locked: @unchecked Sendable where State: Sendable {}
