import Dispatch

/// Runs an origin's tasks (its accept loop, every connection and the handler) on a queue of its
/// own instead of Swift's shared pool.
///
/// That pool has as many threads as cores, two on the machines the tests run on. A test that
/// computes for a minute without awaiting holds one of them; two such tests at once hold both, and
/// an origin served from the pool would then answer nothing while a client's own clock (URLSession's
/// request timeout, on a thread of its own) runs out. A serial queue gets a thread of its own from
/// Dispatch whatever the pool is doing. An origin's work is short between awaits, so one queue per
/// origin serves its connections in turn without delaying any noticeably.
final class OriginExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "loopback-origin")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
