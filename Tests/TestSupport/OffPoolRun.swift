import Foundation
import Synchronization

/// Runs blocking work on a thread of its own, outside Swift's cooperative pool, and awaits it
/// without holding a pool thread.
///
/// The wait ends at a deadline even when the work never returns (an open that waits on a FIFO),
/// so such a regression fails its test instead of stopping the whole run; the thread is left
/// behind, blocked, until the process ends.
public enum OffPoolRun {
    /// `body`'s result, or nil when it had not returned within `seconds`.
    public static func result<Value: Sendable>(
        within seconds: Double, _ body: @escaping @Sendable () -> Value
    ) async -> Value? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
            let pending = Mutex<CheckedContinuation<Value?, Never>?>(continuation)
            let finish: @Sendable (Value?) -> Void = { value in
                pending.withLock { $0.take() }?.resume(returning: value)
            }
            Thread.detachNewThread { finish(body()) }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { finish(nil) }
        }
    }
}
