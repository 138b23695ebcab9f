import Foundation

/// A thread for the slow disk work the writer asks for but need not wait on.
///
/// Copying the index's write-ahead log back into its file (a checkpoint) and writing back the
/// pages a mass eviction dirtied in LMDB's file can each take long on a busy disk.
/// Done on the writer thread, every put queued behind them waited as long; here they run
/// beside it. Neither changes what is durable or visible: a passive checkpoint runs beside a
/// writer in WAL mode (it never takes the write lock), and an early `fdatasync` only makes the
/// next marked flush of periodic durability find less to write. Requests of one kind coalesce.
final class BackgroundWriteback: Sendable {
    enum Job: Hashable, Sendable {
        /// A passive checkpoint of the index on its own connection.
        case checkpointIndex
        /// `fdatasync` of LMDB's data file, without touching `flush.state`.
        case writeBackBlobs
    }

    private let thread = JobThread<Set<Job>, Job>(named: "cache-writeback", queue: []) { requested, stopping in
        if stopping { return .finish }
        if let job = requested.popFirst() { return .run(job) }
        return .wait(until: nil)
    }

    /// Starts the thread; `perform` runs there for each requested job.
    func start(perform: @escaping @Sendable (Job) -> Void) {
        thread.start(perform: perform)
    }

    /// Asks for `job`, unless it is already waiting to run.
    func request(_ job: Job) {
        thread.update { requested, stopping in
            if !stopping { requested.insert(job) }
        }
    }

    /// Waits for the job under way, drops those not begun, and ends the thread.
    func stop() {
        thread.stop { $0.removeAll() }
    }
}
