import Dispatch
import Synchronization

/// A step of opening run on another thread while the opener does its own, joined where its
/// result is needed.
///
/// A cold open waits on the disk twice, for LMDB's pages and for SQLite's, and neither half needs
/// the other to open; one after the other the waits add up, side by side the device serves them
/// together. The step runs on a global queue's thread (no thread is made per open).
final class ConcurrentStep<Value: Sendable>: Sendable {
    private let outcome = Mutex<Result<Value, any Error>?>(nil)
    private let finished = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () throws -> Value) {
        DispatchQueue.global(qos: .userInitiated).async {
            let result = Result { try body() }
            self.outcome.withLock { $0 = result }
            self.finished.signal()
        }
    }

    /// Waits for the step (the first time) and returns what it returned, or throws what it threw.
    func value() throws -> Value {
        if let done = outcome.withLock({ $0 }) { return try done.get() }
        finished.wait()
        return try outcome.withLock { $0! }.get()
    }

    /// Waits for the step and hands a value it made to `discard` (to close it): for the opener's
    /// failures, which must not leave the step running or its result open.
    func abandon(_ discard: (Value) -> Void) {
        if let value = try? value() { discard(value) }
    }
}
