#if os(Linux)
import Foundation
import Synchronization

/// The decode worker processes of one executable and memory limit: idle ones kept for the next
/// job, a new one started when none is idle, a dead one replaced by the next job's.
///
/// As many run at once as callers decode at once (the decoding queue is as wide as the machine);
/// at most ``maxIdle`` wait between jobs, each for its isolation's `idleWorkerLifetime` at most (a
/// waiting worker holds its libraries' memory for nothing). A worker retires after
/// ``jobsPerWorker`` jobs, or once it has written much to its standard error, so a decoding
/// library's leaks and its process's growth stay bounded.
final class DecodeWorkerPool: Sendable {
    private struct Key: Hashable {
        let executable: String
        let memoryLimitBytes: Int
        let fault: DecodeWorkerFault?
    }

    private struct Idle {
        let worker: DecodeWorker
        let jobs: Int
        /// When it may retire if no job has taken it by then.
        let retiresAt: ContinuousClock.Instant
    }

    private let key: Key
    private let idle = Mutex<[Idle]>([])
    /// Every worker this pool started, for the tests that follow one from start to exit.
    private let started = Mutex<[Int32]>([])
    private let maxIdle = max(1, ProcessInfo.processInfo.activeProcessorCount)
    private static let jobsPerWorker = 1000
    private static let standardErrorLimit = 1 << 20

    private init(key: Key) {
        self.key = key
    }

    private static let pools = Mutex<[Key: DecodeWorkerPool]>([:])

    /// The process's pool for `executable` at `memoryLimitBytes`.
    static func shared(executable: String, memoryLimitBytes: Int, fault: DecodeWorkerFault?) -> DecodeWorkerPool {
        let key = Key(executable: executable, memoryLimitBytes: memoryLimitBytes, fault: fault)
        return pools.withLock { pools in
            if let pool = pools[key] { return pool }
            let pool = DecodeWorkerPool(key: key)
            pools[key] = pool
            return pool
        }
    }

    /// `job` decoded by a worker within `isolation`'s limits. A worker killed from outside while it
    /// had the job (nothing says the job caused it) is replaced and the job tried once more.
    func decode(_ job: DecodeJob, isolation: DecodeIsolation) throws(ImageDecodingError) -> DecodedImage {
        let deadline = ContinuousClock.now + isolation.deadline
        var end = DecodeWorkerEnd.retired
        for round in 0..<2 {
            switch try self.attempt(job, until: deadline, idleLifetime: isolation.idleWorkerLifetime) {
            case let .answered(result):
                return try result.get()
            case let .ended(ended):
                end = ended
                guard case .killedFromOutside = ended, round == 0 else { throw Self.error(for: end, isolation: isolation) }
            }
        }
        throw Self.error(for: end, isolation: isolation)
    }

    /// One try of `job` on an idle worker (one that died while idle is passed over) or a new one.
    private func attempt(
        _ job: DecodeJob, until deadline: ContinuousClock.Instant, idleLifetime: Duration
    ) throws(ImageDecodingError) -> DecodeWorker.Outcome {
        var taken = idle.withLock { $0.popLast() }
        while let idle = taken, !idle.worker.isAlive { taken = self.idle.withLock { $0.popLast() } }
        let worker: DecodeWorker
        if let taken {
            worker = taken.worker
        } else {
            worker = try DecodeWorker.start(executable: key.executable, memoryLimitBytes: key.memoryLimitBytes, fault: key.fault)
            started.withLock { $0.append(worker.processID) }
        }
        let outcome = worker.run(job, deadline: deadline)
        if case .answered = outcome { putBack(worker, jobs: (taken?.jobs ?? 0) + 1, idleLifetime: idleLifetime) }
        return outcome
    }

    /// The process IDs of every worker this pool started, in order.
    var startedProcessIDs: [Int32] {
        started.withLock { $0 }
    }

    /// The process IDs of the workers waiting for a job.
    var idleProcessIDs: [Int32] {
        idle.withLock { $0.map(\.worker.processID) }
    }

    private func putBack(_ worker: DecodeWorker, jobs: Int, idleLifetime: Duration) {
        let retiresAt = ContinuousClock.now + idleLifetime
        let kept =
            jobs < Self.jobsPerWorker && worker.standardErrorBytes < Self.standardErrorLimit
            && idle.withLock { idle in
                guard idle.count < maxIdle else { return false }
                idle.append(Idle(worker: worker, jobs: jobs, retiresAt: retiresAt))
                return true
            }
        guard kept else { return worker.retire() }
        // Off Swift's pool: retiring waits for the worker's exit.
        let (seconds, attoseconds) = idleLifetime.components
        let delay = Double(seconds) + Double(attoseconds) / 1e18
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + max(0, delay)) { [self] in retireIdleWorkers() }
    }

    /// Retires the workers that have waited their whole lifetime for a job.
    private func retireIdleWorkers() {
        let now = ContinuousClock.now
        let expired = idle.withLock { idle in
            let expired = idle.filter { $0.retiresAt <= now }
            idle.removeAll { $0.retiresAt <= now }
            return expired
        }
        for waiting in expired { waiting.worker.retire() }
    }

    private static func error(for end: DecodeWorkerEnd, isolation: DecodeIsolation) -> ImageDecodingError {
        switch end {
        case .processorTimeExceeded:
            .decodingTimedOut("it used more than \(isolation.cpuTimeLimit.wholeSeconds) s of processor time")
        case .deadlinePassed:
            .decodingTimedOut("it took longer than \(isolation.deadline)")
        case let .outOfMemory(detail):
            .decodingExceededMemory("\(detail) (\(isolation.workerMemoryLimitBytes >> 20) MiB)")
        case let .crashed(detail), let .killedFromOutside(detail):
            .decoderCrashed(detail)
        case .retired:
            .decoderCrashed("the decode worker exited while it had a job")
        }
    }
}

extension Duration {
    /// Whole seconds, rounded up, at least one: what `RLIMIT_CPU` counts in.
    var wholeSeconds: Int {
        let (seconds, attoseconds) = components
        return max(1, Int(seconds) + (attoseconds > 0 ? 1 : 0))
    }
}
#endif
