import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTask {
    /// Cancels the task from another thread, never from the caller's.
    ///
    /// On Linux `cancel()` waits (`dispatch_sync`) for the session's work queue, and that queue
    /// runs the delegate's calls (``ImmediateDelegateQueue``), which resume the reading task's
    /// continuations. Two callers would deadlock waiting there:
    /// - a delegate call itself, which runs on the work queue;
    /// - a Swift task's cancellation handler (`withTaskCancellationHandler`'s `onCancel`, a
    ///   stream's `onTermination` on cancellation): the runtime holds the cancelled task's status
    ///   lock while the handler runs, and a body chunk arriving at that moment waits on the work
    ///   queue for the same lock to resume that task. Both threads block, and a cooperative pool
    ///   with few threads stops with them.
    ///
    /// On a serial queue of its own, not a global one: Swift's tasks run on the global queues on
    /// Linux, and while they keep every thread busy a cancellation sent there waited with them,
    /// leaving the abandoned transfer (and the load waiting on it) running for minutes. A serial
    /// queue gets a thread of its own whatever the pool is doing.
    func cancelElsewhere() {
        Self.cancellations.async { self.cancel() }
    }

    private static let cancellations = DispatchQueue(label: "imagecache-urlsession-cancel")
}
