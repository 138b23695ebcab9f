import Foundation

/// A thread for the slow disk work the writer asks for but need not wait on.
///
/// Copying the index's write-ahead log back into its file (a checkpoint) and writing back the
/// pages a mass eviction dirtied in LMDB's file each take tens to hundreds of milliseconds.
/// Done on the writer thread, every put queued behind them waited as long; here they run
/// beside it. Neither changes what is durable or visible: a passive checkpoint runs beside a
/// writer in WAL mode (it never takes the write lock), and an early `fdatasync` only makes the
/// next marked flush of periodic durability find less to write. Requests of one kind coalesce.
/// State is guarded by `condition` (`@unchecked Sendable` for that reason).
final class BackgroundWriteback: @unchecked Sendable {
    enum Job: Hashable, Sendable {
        /// A passive checkpoint of the index on its own connection.
        case checkpointIndex
        /// `fdatasync` of LMDB's data file, without touching `flush.state`.
        case writeBackBlobs
    }

    private let condition = NSCondition()
    private var requested: Set<Job> = []
    private var stopping = false
    private var stopped = false
    private var started = false
    /// Set once by `start`; dropped when the thread ends, breaking the cycle with the store's core.
    private var perform: (@Sendable (Job) -> Void)?

    /// Starts the thread; `perform` runs there for each requested job.
    func start(perform: @escaping @Sendable (Job) -> Void) {
        self.perform = perform
        started = true
        BackgroundThread.start(named: "cache-writeback") { [self] in run() }
    }

    /// Asks for `job`, unless it is already waiting to run.
    func request(_ job: Job) {
        condition.lock()
        if !stopping {
            requested.insert(job)
            condition.signal()
        }
        condition.unlock()
    }

    /// Waits for the job under way, drops those not begun, and ends the thread.
    func stop() {
        condition.lock()
        defer { condition.unlock() }
        guard started else { return }
        stopping = true
        requested.removeAll()
        condition.signal()
        while !stopped { condition.wait() }
    }

    private func run() {
        while true {
            condition.lock()
            while requested.isEmpty && !stopping { condition.wait() }
            if stopping {
                perform = nil
                stopped = true
                condition.broadcast()
                condition.unlock()
                return
            }
            let job = requested.removeFirst()
            let perform = perform
            condition.unlock()
            perform?(job)
        }
    }
}
