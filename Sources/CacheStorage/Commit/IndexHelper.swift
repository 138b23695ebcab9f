import Foundation

/// A thread beside the writer for index work that overlaps LMDB's, one job at a time.
///
/// The writer holds the index's write connection; while it runs an LMDB transaction it lends
/// that connection (inside a SQLite transaction it has begun) to a job here, and takes it back by
/// waiting for the job before it touches the connection again, so the connection is never used
/// by two threads at once. A mass eviction deletes its victims' rows here while LMDB deletes the
/// entries; a group commit upserts its puts' rows here while LMDB writes them (see
/// ``IndexPrefill``). Lowered like the writer (see ``BackgroundThread``).
final class IndexHelper: Sendable {
    private let thread = JobThread<[@Sendable () -> Void], @Sendable () -> Void>(named: "cache-indexer", queue: []) {
        jobs, stopping in
        if !jobs.isEmpty { return .run(jobs.removeFirst()) }
        return stopping ? .finish : .wait(until: nil)
    }

    /// Runs `job` on the helper thread (started at the first job); `wait()` on the result
    /// returns what it returned. After `stop`, the job runs on the calling thread.
    func run<Value: Sendable>(_ job: @escaping @Sendable () -> Value) -> Job<Value> {
        let result = Job<Value>()
        thread.start { $0() }
        let queued = thread.update { jobs, stopping in
            guard !stopping else { return false }
            jobs.append { result.finish(job()) }
            return true
        }
        if !queued { result.finish(job()) }
        return result
    }

    /// Finishes the jobs given so far, then ends the thread.
    func stop() {
        thread.stop()
    }

    /// A job's result, set once on the helper thread and read by the thread that waits for it;
    /// guarded by `condition` (`@unchecked Sendable` for that reason), whose lock also orders
    /// what the job did to the connection before the waiting thread uses it again.
    final class Job<Value: Sendable>: @unchecked Sendable {
        private let condition = NSCondition()
        private var value: Value?
        private var finished = false

        fileprivate func finish(_ value: Value) {
            condition.lock()
            self.value = value
            finished = true
            condition.signal()
            condition.unlock()
        }

        /// Blocks until the job has run; returns its value.
        func wait() -> Value {
            condition.lock()
            defer { condition.unlock() }
            while !finished { condition.wait() }
            return value!
        }
    }
}
