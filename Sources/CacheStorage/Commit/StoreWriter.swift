import Foundation

/// The single writer thread: collects operations from every task and commits them in batches.
///
/// One thread, because LMDB allows one write transaction at a time and SQLite one writer; a
/// dedicated thread (not a task) because the work blocks on disk and must not hold a cooperative
/// thread. With no work it still makes an idle pass every `idleInterval` (and when one is asked
/// for), with an empty batch.
final class StoreWriter: Sendable {
    typealias Completion = @Sendable (Result<WriteOutcome, any Error>) -> Void

    struct Pending {
        let operation: WriteOperation
        let completion: Completion
    }

    /// What the writer thread waits on.
    struct Queue {
        var pending: [Pending] = []
        var wakeRequested = false
        /// When an idle pass is due sooner than the idle interval (see `requestPass(at:)`).
        var passDue: Date?
        /// When the current wait's idle pass is due: set as the wait begins, so a pass requested
        /// for later re-times the wait instead of restarting it.
        var idleDue: Date?
        /// Set when a pass was handed out: the next look first ends the thread if asked to stop
        /// with nothing queued.
        var afterPass = false
    }

    private let thread: JobThread<Queue, (batch: [Pending], idle: Bool)>
    private let maxBatchBytes: Int

    init(idleInterval: TimeInterval, maxBatchBytes: Int) {
        self.maxBatchBytes = maxBatchBytes
        thread = JobThread(named: "cache-writer", queue: Queue()) { queue, stopping in
            Self.next(&queue, stopping: stopping, idleInterval: idleInterval, maxBatchBytes: maxBatchBytes)
        }
    }

    /// Starts the thread; `process` runs there for every batch (and for idle passes).
    func start(process: @escaping @Sendable (_ batch: [Pending], _ idle: Bool) -> Void) {
        thread.start { process($0.batch, $0.idle) }
    }

    func submit(_ operation: WriteOperation, completion: @escaping Completion) {
        let queued = thread.update { queue, stopping in
            guard !stopping else { return false }
            queue.pending.append(Pending(operation: operation, completion: completion))
            return true
        }
        if !queued { completion(.failure(StorageError.closed)) }
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
        thread.update { queue, _ in
            let eligible = queue.pending.prefix { include($0.operation) }.count
            return Self.takeBatch(from: &queue, upTo: eligible, maxBatchBytes: maxBatchBytes)
        }
    }

    /// Returns operations taken in a batch but not run to the head of the queue, in their order.
    func putBack(_ operations: [Pending]) {
        guard !operations.isEmpty else { return }
        thread.update { queue, _ in queue.pending.insert(contentsOf: operations, at: 0) }
    }

    /// Asks for a pass with no operations (to persist recorded reads).
    func wake() {
        thread.update { queue, _ in queue.wakeRequested = true }
    }

    /// Asks for a pass with no operations at `date` (sooner if woken or given work meanwhile).
    func requestPass(at date: Date) {
        thread.update { queue, _ in
            if queue.passDue.map({ date < $0 }) ?? true { queue.passDue = date }
        }
    }

    /// Finishes queued work, then ends the thread.
    func stop() {
        thread.stop()
    }

    /// What the thread does next: after a pass, end if asked to stop with nothing queued (a pass
    /// may have put operations back, see `putBack`); else wait until there is work, a wake, a
    /// stop, or the idle pass is due, and then hand out a batch (empty for an idle pass).
    private static func next(
        _ queue: inout Queue, stopping: Bool, idleInterval: TimeInterval, maxBatchBytes: Int
    ) -> JobThread<Queue, (batch: [Pending], idle: Bool)>.Step {
        if queue.afterPass {
            queue.afterPass = false
            if stopping && queue.pending.isEmpty { return .finish }
        }
        let now = Date()
        let idleDue = queue.idleDue ?? now.addingTimeInterval(idleInterval)
        queue.idleDue = idleDue
        let due = min(idleDue, queue.passDue ?? idleDue)
        if queue.pending.isEmpty && !queue.wakeRequested && !stopping && due > now { return .wait(until: due) }
        let batch = takeBatch(from: &queue, maxBatchBytes: maxBatchBytes)
        queue.wakeRequested = false
        if batch.isEmpty { queue.passDue = nil }
        queue.idleDue = nil
        queue.afterPass = true
        return .run((batch, batch.isEmpty))
    }

    /// Takes operations up to `maxBatchBytes` of put data (at least one, when `upTo` allows).
    private static func takeBatch(from queue: inout Queue, upTo limit: Int = .max, maxBatchBytes: Int) -> [Pending] {
        var bytes = 0
        var count = 0
        for item in queue.pending.prefix(limit) {
            let size = item.operation.payloadBytes
            if count > 0 && bytes + size > maxBatchBytes { break }
            bytes += size
            count += 1
        }
        let batch = Array(queue.pending.prefix(count))
        queue.pending.removeFirst(count)
        return batch
    }
}

/// An operation for the writer.
enum WriteOperation: Sendable {
    /// Entries prepared off the writer thread (digest, encoded record, bytes).
    case put([PreparedPut])
    /// New attributes for an entry, only while its bytes have `ifChecksum` when one is given.
    case update(key: String, attributes: EntryAttributes, ifChecksum: UInt64?)
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
    case attributes(AttributeUpdate)
    case removed(entries: Int, bytes: Int)
    case compacted(bytesBefore: Int, bytesAfter: Int)
    /// A put refused whole: the source of one of its derived entries is gone or holds other bytes.
    case sourceChanged(key: String, source: String)
}
