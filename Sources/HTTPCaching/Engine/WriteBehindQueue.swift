import CacheStorage
import Foundation

/// The disk tier's writes, behind the responses: a load hands its store, its update after a
/// validation or its derived body (a thumbnail) here and returns; one background task commits
/// them in the order given, a batch at a time.
///
/// - A newer write of a key replaces a waiting one in its place (the latest wins, one commit).
/// - Reads of the cache ask here before the disk (``response(for:)``, ``derived(for:)``), so a
///   load right after another sees its write whether or not it has committed.
/// - The waiting writes are bounded (``WriteBehindLimits``); one that does not fit is dropped,
///   counted and logged, never waited for.
/// - A failed commit is counted and logged as a failed store always was; no load waits on it.
///
/// A write being committed stays readable until its commit has returned, so there is no moment
/// when neither this queue nor the store holds it. Writes of one batch go to the store together
/// (its writer commits concurrent puts as one); a derived body waits for a later batch when the
/// response it was derived from is in the same one, since the store checks it against that
/// response's committed bytes. State sits behind one `Mutex`.
final class WriteBehindQueue: Sendable {
    /// One write of a key.
    enum Write: Sendable {
        /// A response and its body, in full (`replacesBody`), or new headers for the body stored
        /// (an update after a validation, written in full if the entry has gone meanwhile).
        case response(StoredEntry, evaluator: CachePolicyEvaluator, replacesBody: Bool)
        /// A body derived from the response stored under another key.
        case derived(DerivedWrite)

        /// Body bytes the write holds while it waits.
        var byteCount: Int {
            switch self {
            case let .response(entry, _, _): entry.body.count
            case let .derived(write): write.body.count
            }
        }

        /// `newer` in place of this write: a response stays written in full if either write was.
        func replaced(by newer: Write) -> Write {
            if case .response(_, _, replacesBody: true) = self, case let .response(entry, evaluator, _) = newer {
                return .response(entry, evaluator: evaluator, replacesBody: true)
            }
            return newer
        }

        var operation: String {
            if case .response(_, _, replacesBody: false) = self { return "update" }
            return "store"
        }
    }

    /// A body derived from the response stored under ``sourceKey``, made from ``sourceBody``.
    struct DerivedWrite: Sendable {
        let body: Data
        let description: BodyDescription
        let contentType: String?
        let sourceKey: String
        /// The bytes it was made from: the store keeps it only while the source holds them.
        let sourceBody: Data
        /// The source as the store names it, its bytes' checksum computed once for the lookups
        /// that find this write waiting and for its commit.
        let source: EntrySource

        init(body: Data, description: BodyDescription, contentType: String?, sourceKey: String, sourceBody: Data) {
            self.body = body
            self.description = description
            self.contentType = contentType
            self.sourceKey = sourceKey
            self.sourceBody = sourceBody
            source = EntrySource(key: sourceKey, bytes: sourceBody)
        }
    }

    private struct Pending {
        var write: Write
        /// Its place in line: a write that replaces another keeps the place of the one it replaced.
        let sequence: UInt64
    }

    private struct State {
        var waiting: [String: Pending] = [:]
        /// Keys of `waiting` in line; a key may appear again after it left and came back.
        var line: [String] = []
        var committing: [String: Pending] = [:]
        var bytes = 0
        var nextSequence: UInt64 = 1
        var draining = false
        var held = false
        var statistics = WriteBehindStatistics()
        /// Callers waiting until every write up to a sequence number is done.
        var sequenceWaiters: [(sequence: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
        /// Callers waiting for the batch being committed to end.
        var batchWaiters: [CheckedContinuation<Void, Never>] = []

        var count: Int { waiting.count + committing.count }

        /// The earliest place in line still waiting or committing; nil when nothing is.
        var earliestSequence: UInt64? {
            (waiting.values.map(\.sequence) + committing.values.map(\.sequence)).min()
        }

        /// Takes the waiters whose writes are all done.
        mutating func satisfiedWaiters() -> [CheckedContinuation<Void, Never>] {
            let earliest = earliestSequence ?? .max
            let done = sequenceWaiters.filter { $0.sequence < earliest }.map(\.continuation)
            sequenceWaiters.removeAll { $0.sequence < earliest }
            return done
        }
    }

    /// Writes committed together at most.
    private static let batchSize = 32

    let limits: WriteBehindLimits
    private let disk: DiskTier
    private let failures: StorageFailureLog
    private let state = Mutex(State())

    init(disk: DiskTier, limits: WriteBehindLimits, failures: StorageFailureLog) {
        self.disk = disk
        self.limits = limits
        self.failures = failures
    }

    /// What has happened so far, and what waits now.
    var statistics: WriteBehindStatistics {
        state.withLock { state in
            var statistics = state.statistics
            statistics.pendingWrites = state.count
            statistics.pendingBytes = state.bytes
            return statistics
        }
    }

    // MARK: Writing

    /// Puts `write` in line for `key`, replacing the write waiting for it if any. Returns false
    /// when it was dropped (the limits were reached: counted and logged).
    @discardableResult
    func enqueue(_ write: Write, for key: String) -> Bool {
        let bytes = write.byteCount
        let (accepted, starts) = state.withLock { state -> (Bool, Bool) in
            if var waiting = state.waiting[key] {
                let total = state.bytes - waiting.write.byteCount + bytes
                guard total <= limits.maxPendingBytes else { return (false, false) }
                waiting.write = waiting.write.replaced(by: write)
                state.waiting[key] = waiting
                state.bytes = total
                state.statistics.accepted += 1
                state.statistics.coalesced += 1
                return (true, false)
            }
            guard state.count < limits.maxPendingWrites, state.bytes + bytes <= limits.maxPendingBytes else {
                return (false, false)
            }
            state.waiting[key] = Pending(write: write, sequence: state.nextSequence)
            state.nextSequence += 1
            state.line.append(key)
            state.bytes += bytes
            state.statistics.accepted += 1
            let starts = !state.draining && !state.held
            if starts { state.draining = true }
            return (true, starts)
        }
        if !accepted { failures.recordQueueFull(write.operation, limits: limits) }
        if starts { startDraining() }
        return accepted
    }

    /// Drops the writes waiting for `keys`, and waits for any of them being committed to finish:
    /// what the caller then does to `keys` on disk comes after every write this queue took for them.
    func cancel(_ keys: [String]) async {
        let keys = Set(keys)
        let resumed = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            for key in keys {
                if let dropped = state.waiting.removeValue(forKey: key) { state.bytes -= dropped.write.byteCount }
            }
            state.line.removeAll { keys.contains($0) }
            return state.satisfiedWaiters()
        }
        for continuation in resumed { continuation.resume() }
        while state.withLock({ state in !keys.isDisjoint(with: state.committing.keys) }) {
            await withCheckedContinuation { continuation in
                let stillCommitting = state.withLock { state in
                    guard !keys.isDisjoint(with: state.committing.keys) else { return false }
                    state.batchWaiters.append(continuation)
                    return true
                }
                if !stillCommitting { continuation.resume() }
            }
        }
    }

    /// Waits until every write accepted before the call has been committed, or has failed
    /// (counted), or was replaced by a newer one that has. Writes accepted meanwhile are not
    /// waited for, so a steady stream of loads cannot keep the caller waiting for ever.
    func waitUntilCommitted() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state in
                let last = state.nextSequence - 1
                guard let earliest = state.earliestSequence, earliest <= last else { return true }
                state.sequenceWaiters.append((last, continuation))
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Stops committing after the batch under way, until ``resume()``: writes wait (within the
    /// limits), readable as ever. For tests that look at what is pending.
    func hold() {
        state.withLock { $0.held = true }
    }

    /// Commits again after ``hold()``.
    func resume() {
        let starts = state.withLock { state in
            state.held = false
            let starts = !state.draining && !state.waiting.isEmpty
            if starts { state.draining = true }
            return starts
        }
        if starts { startDraining() }
    }

    // MARK: Reading

    /// The response waiting (or being committed) for `key`: the newest write of it.
    func response(for key: String) -> StoredEntry? {
        state.withLock { state in
            guard case let .response(entry, _, _)? = (state.waiting[key] ?? state.committing[key])?.write else { return nil }
            return entry
        }
    }

    /// The derived body waiting (or being committed) for `key`.
    func derived(for key: String) -> DerivedWrite? {
        state.withLock { state in
            guard case let .derived(write)? = (state.waiting[key] ?? state.committing[key])?.write else { return nil }
            return write
        }
    }

    // MARK: Committing

    private func startDraining() {
        Task.detached(priority: .utility) { await self.drain() }
    }

    private func drain() async {
        while let batch = nextBatch() {
            await withTaskGroup(of: Void.self) { group in
                for (key, pending) in batch {
                    group.addTask { await self.commit(pending.write, for: key) }
                }
            }
            finish(batch)
        }
    }

    /// Moves the next writes in line to `committing`; nil (and draining ends) when none
    /// wait or the queue is held.
    private func nextBatch() -> [(String, Pending)]? {
        state.withLock { state in
            guard !state.held, !state.line.isEmpty else {
                state.draining = false
                return nil
            }
            var batch: [(String, Pending)] = []
            var taken = 0
            for key in state.line {
                guard batch.count < Self.batchSize else { break }
                if let pending = state.waiting[key] {
                    // The store checks a derived body against its source's committed bytes.
                    if case let .derived(write) = pending.write, state.committing[write.sourceKey] != nil { break }
                    state.waiting[key] = nil
                    state.committing[key] = pending
                    batch.append((key, pending))
                }
                taken += 1
            }
            state.line.removeFirst(taken)
            return batch
        }
    }

    private func finish(_ batch: [(String, Pending)]) {
        let resumed = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            for (key, pending) in batch {
                state.committing[key] = nil
                state.bytes -= pending.write.byteCount
            }
            let batchWaiters = state.batchWaiters
            state.batchWaiters = []
            return batchWaiters + state.satisfiedWaiters()
        }
        for continuation in resumed { continuation.resume() }
    }

    private func commit(_ write: Write, for key: String) async {
        do {
            switch write {
            case let .response(entry, evaluator, replacesBody: true):
                try await disk.write(entry, for: key, evaluator: evaluator)
            case let .response(entry, evaluator, replacesBody: false):
                try await disk.update(entry, for: key, evaluator: evaluator)
            case let .derived(derived):
                try await disk.writeDerived(derived, for: key)
            }
            state.withLock { $0.statistics.committed += 1 }
        } catch StorageError.sourceChanged {
            state.withLock { $0.statistics.discarded += 1 }
        } catch {
            failures.record(error, operation: write.operation)
        }
    }
}
