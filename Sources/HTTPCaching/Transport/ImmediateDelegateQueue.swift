#if canImport(FoundationNetworking)
import Foundation
import FoundationNetworking

/// The delegate queue of ``URLSessionTransport``'s session on Linux: it runs each delegate call
/// at once, on the thread that schedules it (URLSession's own work queue), instead of as an
/// operation.
///
/// Foundation on Linux schedules every delegate call (the head, each 16 KB chunk, the end) as an
/// `OperationQueue` operation, and a session's queue runs one at a time, dispatching each to a
/// new thread when the one before ends: a fetch of a few chunks makes several thread hand-offs
/// where `data(from:)` makes one, most of what a streamed fetch costs over it. Run here,
/// the calls keep their order (the work queue is serial) and cost a function call each.
///
/// This is sound only because ``StreamingDelegate``'s methods never block and never call back
/// into URLSession on this thread: they take a lock, append, and resume continuations. (A task's
/// `cancel()` or `suspend()` waits for the work queue, so calling either from here would deadlock;
/// the one callback that must end in a cancellation, an authentication challenge, answers from
/// another thread.) Foundation's own completion closures, which run here too, only record state
/// and dispatch asynchronously.
final class ImmediateDelegateQueue: OperationQueue, @unchecked Sendable {
    // `@unchecked`: no state of its own; `OperationQueue` guards its own.

    override init() {
        super.init()
        // Anything scheduled some other way than `addOperation(_:)` still runs one at a time, in order.
        maxConcurrentOperationCount = 1
    }

    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        block()
    }
}
#endif
