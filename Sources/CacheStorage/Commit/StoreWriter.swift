import Foundation

/// The single writer thread: collects operations from every task and commits them in batches.
///
/// One thread, because LMDB allows one write transaction at a time and SQLite one writer; a
/// dedicated thread (not a task) because the work blocks on disk and must not hold a cooperative
/// thread. State is guarded by `condition` (`@unchecked Sendable` for that reason).
final class StoreWriter: @unchecked Sendable {
    typealias Completion = @Sendable (Result<WriteOutcome, any Error>) -> Void

    struct Pending {
        let operation: WriteOperation
        let completion: Completion
    }

    private let condition = NSCondition()
    private var pending: [Pending] = []
    private var wakeRequested = false
    /// When an idle pass is due sooner than the idle interval (see `requestPass(at:)`).
    private var passDue: Date?
    private var stopping = false
    private var stopped = false
    private let idleInterval: TimeInterval
    private let maxBatchBytes: Int
    /// Set once by `start`, before the thread exists; read only by the thread.
    private var process: (@Sendable (_ batch: [Pending], _ idle: Bool) -> Void)?

    init(idleInterval: TimeInterval, maxBatchBytes: Int) {
        self.idleInterval = idleInterval
        self.maxBatchBytes = maxBatchBytes
    }

    /// Starts the thread; `process` runs there for every batch (and for idle passes).
    func start(process: @escaping @Sendable (_ batch: [Pending], _ idle: Bool) -> Void) {
        self.process = process
        BackgroundThread.start(named: "cache-writer") { [self] in run() }
    }

    func submit(_ operation: WriteOperation, completion: @escaping Completion) {
        condition.lock()
        if stopping {
            condition.unlock()
            completion(.failure(StorageError.closed))
            return
        }
        pending.append(Pending(operation: operation, completion: completion))
        condition.signal()
        condition.unlock()
    }

    func submit(_ operation: WriteOperation) async throws -> WriteOutcome {
        try await withCheckedThrowingContinuation { continuation in
            submit(operation) { continuation.resume(with: $0) }
        }
    }

    /// Blocks the calling thread until the operation is done; for synchronous callers.
    func submitAndWait(_ operation: WriteOperation) throws -> WriteOutcome {
        let done = DispatchSemaphore(value: 0)
        let result = Locked<Result<WriteOutcome, any Error>?>(nil)
        submit(operation) { outcome in
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0! }.get()
    }

    /// Takes the operations at the head of the queue that satisfy `include`, up to the first that
    /// does not (so nothing overtakes an operation queued before it) and up to `maxBatchBytes`.
    /// For the writer thread, to commit them in the middle of a long operation.
    func takeQueued(where include: (WriteOperation) -> Bool) -> [Pending] {
        condition.lock()
        defer { condition.unlock() }
        let eligible = pending.prefix { include($0.operation) }.count
        return takeBatch(upTo: eligible)
    }

    /// Returns operations taken in a batch but not run to the head of the queue, in their order.
    func putBack(_ operations: [Pending]) {
        guard !operations.isEmpty else { return }
        condition.lock()
        pending.insert(contentsOf: operations, at: 0)
        condition.unlock()
    }

    /// Asks for a pass with no operations (to persist recorded reads).
    func wake() {
        condition.lock()
        wakeRequested = true
        condition.signal()
        condition.unlock()
    }

    /// Asks for a pass with no operations at `date` (sooner if woken or given work meanwhile).
    func requestPass(at date: Date) {
        condition.lock()
        if passDue.map({ date < $0 }) ?? true { passDue = date }
        condition.signal()
        condition.unlock()
    }

    /// Finishes queued work, then ends the thread.
    func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        while !stopped { condition.wait() }
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            // Until there is work, a wake, or the next idle pass is due: a pass requested for
            // later re-times the wait, it does not end it.
            let idleDue = Date(timeIntervalSinceNow: idleInterval)
            while pending.isEmpty && !wakeRequested && !stopping {
                let due = min(idleDue, passDue ?? idleDue)
                if due.timeIntervalSinceNow <= 0 || !condition.wait(until: due) { break }
            }
            let batch = takeBatch()
            let idle = batch.isEmpty
            wakeRequested = false
            if idle { passDue = nil }
            condition.unlock()

            process?(batch, idle)

            // Checked after the pass: it may have put operations back (see `putBack`).
            condition.lock()
            let finished = stopping && pending.isEmpty
            condition.unlock()
            if finished {
                condition.lock()
                // The handler captures the store's core, which owns this writer: dropping it breaks
                // the cycle, so a closed store is freed (and its lock files closed).
                process = nil
                stopped = true
                condition.broadcast()
                condition.unlock()
                return
            }
        }
    }

    /// Takes operations up to `maxBatchBytes` of put data (at least one, when `upTo` allows).
    /// Called with the lock held.
    private func takeBatch(upTo limit: Int = .max) -> [Pending] {
        var bytes = 0
        var count = 0
        for item in pending.prefix(limit) {
            let size = item.operation.payloadBytes
            if count > 0 && bytes + size > maxBatchBytes { break }
            bytes += size
            count += 1
        }
        let batch = Array(pending.prefix(count))
        pending.removeFirst(count)
        return batch
    }
}

/// An operation for the writer.
enum WriteOperation: Sendable {
    /// Entries prepared off the writer thread (digest, encoded record, bytes).
    case put([PreparedPut])
    case update(key: String, attributes: EntryAttributes)
    case remove([String])
    /// Removes entries whose blob is missing or does not match the record (checked again here).
    case removeIfDamaged([KeyDigest])
    /// Removes blobs and records from the logs under numbers no entry's record names (found by
    /// `verify`; no entry can come to name one meanwhile, see ``BlobNumbers``).
    case removeOrphanedLogBlobs([UInt64])
    case removeAll
    case evict(toBytes: Int?, toEntries: Int?)
    /// Persists recorded reads and, in relaxed durability, syncs to disk.
    case flush
    case rebuildIndex
    /// Compacts LMDB and vacuums SQLite; the caller has checked no other process uses the store.
    case compact

    /// Whether the operation only removes entries (and so frees space rather than taking it).
    var isRemoval: Bool {
        switch self {
        case .remove, .removeIfDamaged, .removeOrphanedLogBlobs: true
        default: false
        }
    }

    /// What the operation weighs against a batch's byte budget. A removal counts as a page, since
    /// it dirties about one LMDB page, so one batch never deletes more than a budget's worth.
    var payloadBytes: Int {
        switch self {
        case let .put(entries): entries.reduce(0) { $0 + $1.data.count }
        case let .remove(keys): keys.count * 4096
        case let .removeIfDamaged(digests): digests.count * 4096
        case let .removeOrphanedLogBlobs(numbers): numbers.count * 4096
        default: 0
        }
    }
}

/// A put whose digest, checksum and record were computed on the caller's thread.
struct PreparedPut: Sendable {
    let digest: KeyDigest
    let key: String
    let record: [UInt8]
    let data: Data
    let checksum: UInt64
    /// Checked against the stored source when the put commits (see ``EntrySource``).
    let source: EntrySource?
}

/// What an operation produced.
enum WriteOutcome: Sendable {
    case done
    case found(Bool)
    case removed(entries: Int, bytes: Int)
    case compacted(bytesBefore: Int, bytesAfter: Int)
    /// A put refused whole: the source of one of its derived entries is gone or holds other bytes.
    case sourceChanged(key: String, source: String)
}
