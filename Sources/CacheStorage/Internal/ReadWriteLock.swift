#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A reader–writer lock: LMDB transactions take it shared, a map resize takes it exclusively,
/// because LMDB forbids resizing the map while any transaction of this process is active.
final class ReadWriteLock: @unchecked Sendable {
    // @unchecked: the pthread lock is the synchronisation itself; it lives at a stable heap address.
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>

    init() {
        lock = .allocate(capacity: 1)
        lock.initialize(to: pthread_rwlock_t())
        pthread_rwlock_init(lock, nil)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    func withReadLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }

    func withWriteLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }
}
