import CLMDB
import Foundation
import Logging

/// The open store shared by every ``PersistentStore`` handle on one directory in this process.
///
/// LMDB must not be opened twice in one process (its locks are per process), so handles on the
/// same directory share one core through ``StoreRegistry``.
final class StoreCore: Sendable {
    let layout: StoreLayout
    let configuration: StoreConfiguration
    let blobs: BlobStore
    let index: MetadataIndex
    let accessLog = AccessLog()
    let writer: StoreWriter
    /// Held shared for the core's life, so compaction can tell whether another process is using the store.
    let usersLock: FileLock
    /// The journal sequence last mirrored into SQLite: entries at or below it may be trimmed.
    let appliedSequence: Locked<UInt64>
    private let lastIdleMaintenance = Locked(Date())
    /// Writer-thread bookkeeping for periodic durability: when LMDB was last synced, and whether
    /// this process has committed since.
    private let flushState = Locked((last: ContinuousClock.now, pending: false))

    var logger: Logger { configuration.logger }
    var mirror: StoreMirror { StoreMirror(blobs: blobs, index: index, logger: logger) }

    init(directory: URL, configuration: StoreConfiguration) throws {
        layout = StoreLayout(directory: directory)
        self.configuration = configuration
        let opened = try StoreOpener(layout: layout, configuration: configuration).open()
        blobs = opened.blobs
        index = opened.index
        appliedSequence = Locked(opened.appliedSequence)
        usersLock = opened.usersLock
        let idleInterval: TimeInterval
        if case let .periodic(interval) = configuration.durability {
            idleInterval = max(0.01, Double(interval.wholeMilliseconds) / 1000)
        } else {
            idleInterval = 1
        }
        writer = StoreWriter(idleInterval: idleInterval, maxBatchBytes: configuration.maxBatchBytes)
        writer.start { [self] batch, idle in
            if idle { idlePass() } else { process(batch) }
        }
    }

    func close() {
        writer.stop()
        index.close()
        blobs.close()
        usersLock.unlock()
    }

    // MARK: Batches

    private func process(_ batch: [StoreWriter.Pending]) {
        var group: [StoreWriter.Pending] = []
        for item in batch {
            switch item.operation {
            case .put, .update, .remove, .removeIfDamaged:
                group.append(item)
            default:
                runGroup(group)
                group.removeAll()
                run(item)
            }
        }
        runGroup(group)
    }

    /// Commits many puts, updates and removals as one LMDB transaction, then mirrors and enforces limits.
    private func runGroup(_ items: [StoreWriter.Pending]) {
        guard !items.isEmpty else { return }
        let results: [WriteOutcome]
        do {
            let trimThrough = appliedSequence.withLock { $0 }
            results = try blobs.write { txn in
                var info = try txn.storeInfo(blobs.databases) ?? StoreInfo.fresh()
                try txn.trimJournal(through: trimThrough, info: &info, blobs.databases)
                var changes = ChangeSet(txn: txn, databases: blobs.databases)
                let outcomes = try items.map { try changes.apply($0.operation) }
                try txn.appendJournal(changes.touched, info: &info, blobs.databases)
                try txn.writeStoreInfo(info, blobs.databases)
                return outcomes
            }
        } catch {
            for item in items { item.completion(.failure(error)) }
            return
        }
        // LMDB has committed: the writes are done whatever happens to the index below, which
        // the next batch or the next open catches up.
        synchronizeIndex()
        enforceLimits()
        for (item, result) in zip(items, results) { item.completion(.success(result)) }
        flushState.withLock { $0.pending = true }
        flushIfDue()
        index.checkpointIfLarge()
    }

    /// In periodic durability, syncs LMDB once the interval has passed since the last sync.
    private func flushIfDue(force: Bool = false) {
        guard case let .periodic(interval) = configuration.durability else { return }
        let due = flushState.withLock { state in
            state.pending && (force || ContinuousClock.now - state.last >= interval)
        }
        guard due else { return }
        do {
            try blobs.sync()
            flushState.withLock { $0 = (ContinuousClock.now, false) }
        } catch {
            logger.warning("Could not flush the blob store", metadata: ["error": "\(error)"])
        }
    }

    private func run(_ item: StoreWriter.Pending) {
        let result: Result<WriteOutcome, any Error>
        do {
            switch item.operation {
            case .removeAll:
                try removeEverything()
                result = .success(.done)
            case let .evict(bytes, entries):
                result = .success(try evict(toBytes: bytes, toEntries: entries))
            case .flush:
                try synchronizeIndexThrowing()
                try blobs.sync()
                result = .success(.done)
            case .rebuildIndex:
                let head = try mirror.catchUp(forceRebuild: true)
                appliedSequence.withLock { $0 = head }
                result = .success(.done)
            case .compact:
                try synchronizeIndexThrowing()
                let indexBefore = indexFileBytes
                try index.writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                try index.writer.execute("VACUUM")
                try index.writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                let lmdb = try blobs.compactInPlace()
                result = .success(
                    .compacted(bytesBefore: lmdb.before + indexBefore, bytesAfter: lmdb.after + indexFileBytes))
            case .put, .update, .remove, .removeIfDamaged:
                result = .failure(StorageError.closed)  // never routed here
            }
        } catch {
            result = .failure(error)
        }
        item.completion(result)
        flushState.withLock { $0.pending = true }
        flushIfDue()
        index.checkpointIfLarge()
    }

    /// With no operations queued: persist recorded reads, sync in relaxed mode, clear stale readers.
    private func idlePass() {
        synchronizeIndex()
        index.checkpointIfLarge(thresholdBytes: 0)
        flushIfDue(force: true)
        let due = lastIdleMaintenance.withLock { last in
            guard Date().timeIntervalSince(last) > 30 else { return false }
            last = Date()
            return true
        }
        if due { blobs.clearStaleReaders() }
    }

    /// Mirrors LMDB into SQLite and persists recorded reads; a failure is logged, and the next
    /// batch or open catches up.
    func synchronizeIndex() {
        do {
            try synchronizeIndexThrowing()
        } catch {
            logger.warning("Could not update the metadata index; it will catch up later", metadata: ["error": "\(error)"])
        }
    }

    private func synchronizeIndexThrowing() throws {
        let drained = accessLog.drain()
        var counters: [String: Int64] = [:]
        if drained.hits > 0 { counters["hits"] = drained.hits }
        if drained.misses > 0 { counters["misses"] = drained.misses }
        let head = try mirror.catchUp(accesses: drained.accesses, counters: counters)
        appliedSequence.withLock { $0 = head }
    }

    var indexFileBytes: Int {
        ([layout.index] + layout.indexSidecars).compactMap(\.fileSize).reduce(0, +)
    }

    // MARK: Limits

    /// Evicts down to the low-water marks when a limit is passed; runs after every batch.
    private func enforceLimits() {
        do {
            let totals = try index.totals(on: index.writer)
            let overBytes = totals.bytes > configuration.byteLimit
            let overEntries = configuration.entryLimit.map { totals.entries > $0 } ?? false
            guard overBytes || overEntries else { return }
            _ = try evict(
                toBytes: overBytes ? configuration.byteLowWater : nil,
                toEntries: overEntries ? configuration.entryLowWater : nil)
        } catch {
            logger.warning("Eviction failed", metadata: ["error": "\(error)"])
        }
    }

    /// Removes expired, then least recently used entries until both targets hold.
    func evict(toBytes byteTarget: Int?, toEntries entryTarget: Int?) throws -> WriteOutcome {
        try synchronizeIndexThrowing()
        let totals = try index.totals(on: index.writer)
        let bytesToFree = byteTarget.map { max(0, totals.bytes - $0) } ?? 0
        let entriesToFree = entryTarget.map { max(0, totals.entries - $0) } ?? 0
        guard bytesToFree > 0 || entriesToFree > 0 else { return .removed(entries: 0, bytes: 0) }
        let victims = try index.evictionCandidates(
            bytesToFree: bytesToFree, entriesToFree: entriesToFree, now: Date())
        guard !victims.isEmpty else { return .removed(entries: 0, bytes: 0) }
        // The index rows go on a second thread while LMDB deletes the records on this one. SQLite
        // commits only after LMDB has: a crash in between leaves rows that the next catch-up
        // removes, never an entry without its row.
        index.writer.resetStatements()
        try index.writer.execute("BEGIN IMMEDIATE")
        do {
            let rows = Locked<Result<TotalsChange, any Error>?>(nil)
            let rowsDone = DispatchSemaphore(value: 0)
            let index = index
            DispatchQueue.global(qos: .userInitiated).async {
                let result = Result { try index.delete(digests: victims) }
                rows.withLock { $0 = result }
                rowsDone.signal()
            }
            let removed = Result { try removeDigests(victims) }
            rowsDone.wait()
            let change = try rows.withLock { $0! }.get()
            let outcome = try removed.get()
            try index.adjustTotals(change)
            let head = try mirror.catchUpInTransaction(removedRows: Set(victims))
            try index.writer.execute("COMMIT")
            appliedSequence.withLock { $0 = head }
            return outcome
        } catch {
            try? index.writer.execute("ROLLBACK")
            throw error
        }
    }

    /// Deletes entries by digest in one LMDB transaction, journaled.
    private func removeDigests(_ digests: [KeyDigest]) throws -> WriteOutcome {
        var entries = 0
        var bytes = 0
        // Small values sit inside LMDB's leaf pages, so deleting them dirties those pages, which
        // LMDB holds in memory until commit (and caps per transaction): commit in bounded chunks.
        for start in stride(from: 0, to: digests.count, by: Self.removalsPerTransaction) {
            let chunk = digests[start..<min(start + Self.removalsPerTransaction, digests.count)]
            let trimThrough = appliedSequence.withLock { $0 }
            try blobs.write { txn in
                var info = try txn.storeInfo(blobs.databases) ?? StoreInfo.fresh()
                try txn.trimJournal(through: trimThrough, info: &info, blobs.databases)
                var changes = ChangeSet(txn: txn, databases: blobs.databases)
                for digest in chunk {
                    if let size = try changes.delete(digest) {
                        entries += 1
                        bytes += size
                    }
                }
                try txn.appendJournal(changes.touched, info: &info, blobs.databases)
                try txn.writeStoreInfo(info, blobs.databases)
            }
        }
        return .removed(entries: entries, bytes: bytes)
    }

    /// The most entries one LMDB transaction deletes (see `removeDigests`).
    static let removalsPerTransaction = 4096

    /// Empties LMDB and marks the journal as unusable, so the mirror rebuilds (emptying) the index.
    private func removeEverything() throws {
        try blobs.write { txn in
            var info = try txn.storeInfo(blobs.databases) ?? StoreInfo.fresh()
            try txn.empty(blobs.databases.records)
            try txn.empty(blobs.databases.blobs)
            try txn.empty(blobs.databases.journal)
            info.nextSequence += 1
            info.trimmedThrough = info.head
            try txn.writeStoreInfo(info, blobs.databases)
        }
        // The journal was emptied on purpose: rebuild (to empty) without logging it as a recovery.
        let head = try mirror.catchUp(forceRebuild: true)
        appliedSequence.withLock { $0 = head }
    }
}
