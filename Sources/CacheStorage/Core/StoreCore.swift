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
    /// Checkpoints and write-back the writer asks for without waiting on them.
    let writeback = BackgroundWriteback()
    /// Index work the writer runs beside LMDB's (see ``IndexHelper``).
    let indexHelper = IndexHelper()
    /// Held shared for the core's life, so compaction can tell whether another process is using
    /// the store (nil for a read-only store that could not open it).
    let usersLock: FileLock?
    /// Held exclusively (without waiting) by compaction, so that no process opens the store meanwhile.
    let openLock: FileLock?
    /// Why the store is read-only, when it is: every write then fails with ``StorageError/readOnly(path:reason:)``.
    let readOnlyReason: String?
    /// The volume's free space, the effective limit and whether writes are paused.
    let space: SpaceMonitor
    /// The blocks given up so that deletions commit on a full disk.
    let reserve: SpaceReserve
    private let lastReserveAttempt = Locked<ContinuousClock.Instant?>(nil)
    /// Set after each batch when the volume's free space, not the byte limit, binds the store: the
    /// index's write-ahead log is then checkpointed and truncated early, since it takes volume space too.
    private let spaceIsTight = Locked(false)
    /// The journal sequence last mirrored into SQLite: entries at or below it may be trimmed.
    let appliedSequence: Locked<UInt64>
    private let lastIdleMaintenance = Locked(Date())
    /// Whether an idle pass persists recorded reads now or once they pause.
    private let readSchedule = Locked(ReadPersistenceSchedule())
    /// Set on the writer thread while an eviction runs in slices (see `evict`).
    private let evictionRunning = Locked(false)
    /// The low-water marks a batch's eviction is to go on to, once the batch has returned.
    private let evictionDue = Locked<(bytes: Int?, entries: Int?)?>(nil)
    /// Periodic durability's bookkeeping (see ``PeriodicFlushState``).
    private let flushState = Locked(PeriodicFlushState(last: ContinuousClock.now))
    /// The writer's merge of the pointer tail into `records` (see ``PointerMerge``).
    private let pointerMerge = Locked(PointerMerge())

    var logger: Logger { configuration.logger }
    var mirror: StoreMirror { StoreMirror(blobs: blobs, index: index, logger: logger) }

    init(directory: URL, configuration: StoreConfiguration) throws {
        layout = StoreLayout(directory: directory)
        self.configuration = configuration
        let opened = try StoreOpener(layout: layout, configuration: configuration).open()
        opened.blobs.finishOpening()
        blobs = opened.blobs
        index = opened.index
        appliedSequence = Locked(opened.appliedSequence)
        usersLock = opened.usersLock
        openLock = opened.openLock
        readOnlyReason = opened.readOnlyReason
        space = SpaceMonitor(directory: directory, policy: configuration.diskSpace, logger: configuration.logger)
        reserve = SpaceReserve(url: layout.reserve, sharing: configuration.sharing)
        let idleInterval: TimeInterval
        if case let .periodic(interval) = configuration.durability {
            idleInterval = max(0.01, Double(interval.wholeMilliseconds) / 1000)
        } else {
            idleInterval = 1
        }
        writer = StoreWriter(idleInterval: idleInterval, maxBatchBytes: configuration.maxBatchBytes)
        if let readOnlyReason {
            let refusal = StorageError.readOnly(path: directory.path, reason: readOnlyReason)
            writer.start { batch, _ in
                for item in batch { item.completion(.failure(refusal)) }
            }
            return
        }
        if let failure = opened.spaceFailure {
            space.pause(failure)
        } else if let volume = space.volume(), volume.availableBytes < 1 << 20,
            (try? blobs.reusableBytes()) ?? 0 < 1 << 20
        {
            // Opened on a full disk: say so at once (statistics, cachectl stats) rather than at the first put.
            space.pause(.diskFull(path: layout.dataFile.path, operation: "write to"))
        }
        replenishReserveIfDue()
        if case .periodic = configuration.durability, FlushMarker.isDirty(in: layout) {
            // A process was killed within a second of writing, in this boot: its writes are in the
            // page cache, so one sync now makes them durable and the marker clean. Without it, a
            // normal reboot later would find `dirty` and throw the whole cache away.
            do {
                try blobs.sync()
            } catch {
                space.warnOnce("flush", "Could not sync a store left dirty by a killed process", error: error)
            }
        }
        writer.start { [self] batch, idle in
            if idle { idlePass() } else { process(batch) }
        }
        writeback.start { [self] job in
            switch job {
            case .checkpointIndex: index.checkpointBesideWriter()
            case .writeBackBlobs:
                blobs.writeBack()
                // A marked sync waiting for this write-back can run now, idle or not.
                if flushState.withLock({ $0.writeBackFinished() }) { writer.wake() }
            }
        }
    }

    var isReadOnly: Bool { readOnlyReason != nil }

    /// The journal sequence up to which entries may be trimmed: what the index file has mirrored.
    /// An index held in memory (see `StoreOpener`) trims nothing, so the file can replay the
    /// journal when it opens next.
    var trimmableSequence: UInt64 { index.isPersistent ? appliedSequence.withLock { $0 } : 0 }

    func close() {
        writer.stop()
        indexHelper.stop()
        writeback.stop()
        // The writer's last pass may only have asked for a write-back: the store closes synced.
        if !isReadOnly { flushIfDue(force: true) }
        // A read recorded after the writer's last idle pass (it may have begun before `stop`)
        // would otherwise be lost: the thread has ended, so its connection is free to persist it.
        if !isReadOnly { synchronizeIndex() }
        // The next process to open this store may find the disk full and need the reserve to open
        // and purge: a reserve given up during a full disk is taken back now if there is room,
        // whether or not the periodic attempt was due.
        if !isReadOnly { replenishReserveIfDue(force: true) }
        index.close()
        blobs.close()
        usersLock?.unlock()
    }

    // MARK: Batches

    /// Commits the batch's leading puts, updates and removals as one group, then runs the next
    /// operation on its own; what follows goes back to the head of the queue first, so an eviction
    /// that commits queued puts between its slices takes them in the order they were queued.
    private func process(_ batch: [StoreWriter.Pending]) {
        let group = batch.prefix { Self.commitsInGroup($0.operation) }
        runGroup(Array(group))
        let rest = batch.dropFirst(group.count)
        if let next = rest.first {
            writer.putBack(Array(rest.dropFirst()))
            run(next)
        }
        if let lowWater = evictionDue.withLock({ due in defer { due = nil }; return due }) {
            do {
                _ = try evict(toBytes: lowWater.bytes, toEntries: lowWater.entries)
            } catch {
                space.warnOnce("evict", "Eviction failed", error: error)
            }
        }
        mergePointersIfDue()
    }

    /// Writes one slice of the pointer tail's merge, when one is due (see ``PointerMerge``). A
    /// failure (a full disk) drops the round: the pointers stay in the tail, where they are found,
    /// and a later round takes them.
    private func mergePointersIfDue() {
        guard !isReadOnly else { return }
        pointerMerge.withLock { merge in
            do {
                try merge.step(
                    blobs, threshold: configuration.pointerMergeThreshold, sliceSize: configuration.pointerMergeSlice)
            } catch {
                merge.abandon()
                if let error = error as? StorageError, error.isOutOfSpace {
                    space.pause(error)
                } else {
                    space.warnOnce("merge", "Could not merge the pointer tail; a later round will", error: error)
                }
            }
        }
    }

    /// Commits many puts, updates and removals as one LMDB transaction, then mirrors and enforces limits.
    ///
    /// While writes are paused for lack of space, puts and updates fail at once with the error that
    /// paused them (unless the volume or LMDB's free pages now hold room for them), and removals
    /// still run, with the space reserve's help: they are what makes room.
    private func runGroup(_ items: [StoreWriter.Pending]) {
        guard !items.isEmpty else { return }
        let bytes = items.reduce(0) { $0 + $1.operation.payloadBytes }
        if let paused = space.mayTryWrite(bytes: bytes, reusableBytes: { (try? blobs.reusableBytes()) ?? 0 }) {
            for item in items where !item.operation.isRemoval { item.completion(.failure(paused)) }
            commitGroup(items.filter(\.operation.isRemoval))
            return
        }
        if items.contains(where: { !$0.operation.isRemoval }) { holdFileGrowth(forPayload: bytes) }
        commitGroup(items)
    }

    /// While the volume's free space binds the store, LMDB's file may grow only into the free
    /// space above what the policy keeps free (``SpaceMonitor/fileCeiling(fileBytes:growth:)``);
    /// a batch that needs more makes room by evicting first (see `commitGroup`). The limit in
    /// force follows the free space only after a batch commits, and pages freed by eviction are
    /// not always reusable (a large blob needs a run of them), so without the hold one batch
    /// could fill the volume.
    private func holdFileGrowth(forPayload bytes: Int) {
        let ceiling = space.fileCeiling(
            fileBytes: { self.layout.dataFile.fileSize ?? 0 }, growth: SpaceMonitor.growthEstimate(forPayload: bytes))
        do {
            try blobs.limitGrowth(to: ceiling)
        } catch {
            space.warnOnce("ceiling", "Could not hold the cache's file to the volume's free space", error: error)
        }
    }

    /// Evicts the least recently used entries so that a batch of `bytes` finds room inside the
    /// files; returns whether anything was evicted.
    private func evictForRoom(_ bytes: Int) -> Bool {
        do {
            let held = try index.totals(on: index.writer).bytes
            let growth = SpaceMonitor.growthEstimate(forPayload: bytes)
            let target = max(0, held - growth - growth / 4)
            guard try evictSlice(toBytes: target, toEntries: nil, mustReach: (target, nil)).entries > 0 else { return false }
            // LMDB reuses the pages a transaction freed only once a later one has committed (the
            // meta page before it still points at them): one small commit lets the batch reuse them.
            try blobs.write { txn in
                let info = try txn.storeInfo(self.blobs.databases) ?? StoreInfo.fresh()
                try txn.writeStoreInfo(info, self.blobs.databases)
            }
            return true
        } catch {
            space.warnOnce("evict", "Could not evict to make room for a write", error: error)
            return false
        }
    }

    private func commitGroup(_ items: [StoreWriter.Pending], evictedForRoom: Bool = false) {
        guard !items.isEmpty else { return }
        let removalsOnly = items.allSatisfy(\.operation.isRemoval)
        // The puts' index rows are upserted beside LMDB's transaction (see IndexPrefill).
        let prefill = removalsOnly ? nil : IndexPrefill.start(items, blobs: blobs, index: index, helper: indexHelper)
        let committed: (outcomes: [WriteOutcome], putRecords: [KeyDigest: ChangeSet.PutRecord], journal: JournalSpan)
        do {
            let commit = {
                let trimThrough = self.trimmableSequence
                return try self.blobs.write(addsData: !removalsOnly) { txn in
                    var info = try txn.storeInfo(self.blobs.databases) ?? StoreInfo.fresh()
                    let headBefore = info.head
                    try txn.trimJournal(through: trimThrough, info: &info, self.blobs.databases)
                    var changes = ChangeSet(
                        txn: txn, databases: self.blobs.databases,
                        pointersToTail: self.configuration.pointerMergeThreshold > 0)
                    let outcomes = try items.map { try changes.apply($0.operation) }
                    changes.raiseFloorPastDroppedPairs(&info)
                    try txn.appendJournal(changes.touched, info: &info, self.blobs.databases)
                    try txn.writeStoreInfo(info, self.blobs.databases)
                    return (outcomes, changes.putRecords, JournalSpan(after: headBefore, through: info.head))
                }
            }
            committed = removalsOnly ? try freeingSpace(commit) : try commit()
        } catch let reached as BlobStore.GrowthCeilingReached {
            prefill?.abandon()
            let bytes = items.reduce(0) { $0 + $1.operation.payloadBytes }
            // A batch larger than the whole file may grow to is refused without evicting anything.
            let couldFit = SpaceMonitor.growthEstimate(forPayload: bytes) < reached.ceilingBytes
            if !evictedForRoom, couldFit, evictForRoom(bytes) {
                commitGroup(items, evictedForRoom: true)
                return
            }
            let refusal = StorageError.diskFull(
                path: layout.dataFile.path,
                operation: "store \(bytes) bytes (the file may grow to \(reached.ceilingBytes) bytes while the volume keeps its free space) in")
            space.warnOnce("ceiling", "A write was refused: the volume cannot spare room for it", error: refusal)
            for item in items where !item.operation.isRemoval { item.completion(.failure(refusal)) }
            commitGroup(items.filter(\.operation.isRemoval))
            return
        } catch let error as StorageError where error.isOutOfSpace {
            prefill?.abandon()
            space.pause(error)
            let removals = items.filter(\.operation.isRemoval)
            guard !removalsOnly, !removals.isEmpty else {
                for item in items { item.completion(.failure(error)) }
                return
            }
            // The removals alone, with the reserve if need be: they free space.
            for item in items where !item.operation.isRemoval { item.completion(.failure(error)) }
            commitGroup(removals)
            return
        } catch {
            prefill?.abandon()
            for item in items { item.completion(.failure(error)) }
            return
        }
        // LMDB has committed: the writes are done whatever happens to the index below, which
        // the next batch or the next open catches up. A commit that succeeded shows there is room.
        space.resume()
        space.noteWritten(bytes: items.reduce(0) { $0 + $1.operation.payloadBytes })
        let prefilled = prefill?.finish(committed: committed.putRecords, journal: committed.journal)
        synchronizeIndex(accessLimit: Self.accessesPerPass, prefilled: prefilled)
        enforceLimits()
        for (item, result) in zip(items, committed.outcomes) { item.completion(.success(result)) }
        flushState.withLock { $0.pending = true }
        flushIfDue()
        checkpointIndexIfLarge()
    }

    /// Keeps the index's write-ahead log short: beside the writer normally; on the writer, and
    /// truncating the log, when free space binds (the log takes volume space too).
    private func checkpointIndexIfLarge() {
        if spaceIsTight.withLock({ $0 }) {
            index.checkpointIfLarge(thresholdBytes: 256 << 10, truncating: true)
        } else if index.uncheckpointedLogBytes > Self.indexLogCheckpointBytes {
            writeback.request(.checkpointIndex)
        }
    }

    /// The write-ahead log size past which the index is checkpointed.
    static let indexLogCheckpointBytes = 4 << 20

    /// Runs a write that frees space; when it fails for lack of space, gives up the space reserve
    /// and runs it once more (LMDB copies the pages a deletion changes, so even that needs room).
    func freeingSpace<Value>(_ body: () throws -> Value) throws -> Value {
        do {
            return try body()
        } catch let error as StorageError where error.isOutOfSpace && reserve.release() {
            space.warnOnce("reserve", "The disk is full: released the space reserve so that deletions commit", error: error)
            return try body()
        }
    }

    /// Allocates the space reserve again once the volume has room for it and more; tried at most
    /// once per recheck interval while it is missing, and on close (`force`).
    private func replenishReserveIfDue(force: Bool = false) {
        guard space.pausedError == nil, let volume = space.volume() else { return }
        let bytes = configuration.diskSpace.reserveBytes(volumeBytes: volume.totalBytes)
        guard bytes > 0 else { return }
        let now = ContinuousClock.now
        let due = lastReserveAttempt.withLock { last in
            if !force, let last, now - last < configuration.diskSpace.recheckInterval { return false }
            last = now
            return true
        }
        guard due else { return }
        reserve.replenish(to: bytes, keepingFree: max(bytes, 1 << 20))
    }

    /// In periodic durability, syncs LMDB once the interval has passed since the last sync, after a
    /// write-back beside the writer (see ``PeriodicFlushState``); `soon` as the store goes idle.
    private func flushIfDue(force: Bool = false, soon: Bool = false) {
        guard case let .periodic(interval) = configuration.durability else { return }
        let step = flushState.withLock { $0.step(now: .now, interval: interval, force: force, soon: soon) }
        switch step {
        case .nothing: return
        case .askForWriteBack:
            writeback.request(.writeBackBlobs)
            return
        case .sync: break
        }
        do {
            try blobs.sync()
            flushState.withLock { $0.synced(at: .now) }
        } catch {
            space.warnOnce("flush", "Could not flush the blob store", error: error)
        }
    }

    private func run(_ item: StoreWriter.Pending) {
        let result: Result<WriteOutcome, any Error>
        do {
            switch item.operation {
            case .removeAll:
                try freeingSpace { try removeEverything() }
                space.resume()
                result = .success(.done)
            case let .evict(bytes, entries):
                result = .success(try evict(toBytes: bytes, toEntries: entries))
                space.resume()
            case .flush:
                do {
                    try synchronizeIndexThrowing()
                } catch where MetadataIndex.isDamage(error) && configuration.recovery == .rebuild {
                    try rebuildIndex(replacingDamage: true)
                }
                try blobs.sync()
                result = .success(.done)
            case .rebuildIndex:
                try rebuildIndex(replacingDamage: index.failsIntegrityCheck())
                result = .success(.done)
            case .compact:
                result = .success(try compact())
            case .put, .update, .remove, .removeIfDamaged, .removeOrphanedLogBlobs:
                result = .failure(StorageError.closed)  // never routed here
            }
        } catch {
            result = .failure(error)
        }
        item.completion(result)
        flushState.withLock { $0.pending = true }
        flushIfDue()
        checkpointIndexIfLarge()
    }

    /// LMDB first (on a full disk it frees the most, and its copy of the remaining data is what
    /// fits), then the index, whose vacuum needs room for a copy of it: skipped when there is none.
    private func compact() throws -> WriteOutcome {
        do {
            try synchronizeIndexThrowing()
        } catch let error as StorageError where error.isOutOfSpace {
            space.warnOnce("index", "The disk is full: compacting without bringing the index up to date first", error: error)
        }
        let indexBefore = indexFileBytes
        let lmdb = try freeingSpace { try blobs.compactInPlace() }
        do {
            try index.writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            try index.writer.execute("VACUUM")
            try index.writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        } catch let error as StorageError where error.isOutOfSpace {
            space.warnOnce("vacuum", "The disk is full: the index was not vacuumed", error: error)
        }
        space.resume()
        return .compacted(bytesBefore: lmdb.before + indexBefore, bytesAfter: lmdb.after + indexFileBytes)
    }

    /// With no operations queued: persist recorded reads, sync in relaxed mode, clear stale readers.
    private func idlePass() {
        replenishReserveIfDue()
        let waiting = accessLog.waiting()
        let decision = readSchedule.withLock {
            $0.decide(waiting: waiting.count, newestRead: waiting.newestRead, now: Date().millisecondsSince1970)
        }
        switch decision {
        case .persist:
            synchronizeIndex(accessLimit: Self.accessesPerPass)
            // Beside the writer: after a run of reads the log holds their access times, and
            // copying it back on the writer would make a put arriving meanwhile wait it out.
            if index.uncheckpointedLogBytes > 0 { writeback.request(.checkpointIndex) }
        case .wait(let milliseconds):
            // Reads are still arriving: the index (and another process's commits it would mirror)
            // waits with them, at most `ReadPersistenceSchedule.longestWait`.
            writer.requestPass(at: Date(millisecondsSince1970: milliseconds))
        }
        flushIfDue(soon: true)
        let due = lastIdleMaintenance.withLock { last in
            guard Date().timeIntervalSince(last) > 30 else { return false }
            last = Date()
            return true
        }
        if due { blobs.clearStaleReaders() }
    }

    /// Mirrors LMDB into SQLite and persists recorded reads; a failure is logged, and the next
    /// batch or open catches up. `accessLimit` bounds the reads persisted in one pass (see
    /// ``accessesPerPass``); without it, all of them.
    /// With `prefilled`, the index's transaction is open, holding the rows ``IndexPrefill``
    /// upserted: the catch-up finishes and commits it.
    func synchronizeIndex(
        accessLimit: Int = .max, prefilled: (change: TotalsChange, own: StoreMirror.OwnChanges)? = nil
    ) {
        do {
            try synchronizeIndexThrowing(accessLimit: accessLimit, prefilled: prefilled)
        } catch where MetadataIndex.isDamage(error) && configuration.recovery == .rebuild {
            do {
                try rebuildIndex(replacingDamage: true)
            } catch {
                space.warnOnce("index", "Could not rebuild the damaged metadata index; the next catch-up tries again", error: error)
            }
        } catch {
            space.warnOnce("index", "Could not update the metadata index; it will catch up later", error: error)
        }
    }

    /// Rebuilds the index from LMDB. With `replacingDamage`, or when SQLite finds the file
    /// malformed on the way, the file is emptied first: every row comes back from LMDB, and the
    /// access times and counters a damaged file held are lost with it.
    func rebuildIndex(replacingDamage: Bool) throws {
        if replacingDamage { try replaceDamagedIndex() }
        let head: UInt64
        do {
            head = try mirror.catchUp(forceRebuild: true)
        } catch where MetadataIndex.isDamage(error) && !replacingDamage {
            try replaceDamagedIndex()
            head = try mirror.catchUp(forceRebuild: true)
        }
        appliedSequence.withLock { $0 = head }
    }

    private func replaceDamagedIndex() throws {
        logger.error("Cache index is damaged; replacing it with one rebuilt from the blob store")
        try index.replaceWithEmpty()
    }

    private func synchronizeIndexThrowing(
        accessLimit: Int = .max, prefilled: (change: TotalsChange, own: StoreMirror.OwnChanges)? = nil
    ) throws {
        let drained = accessLog.drain(limit: accessLimit)
        var counters: [String: Int64] = [:]
        if drained.hits > 0 { counters["hits"] = drained.hits }
        if drained.misses > 0 { counters["misses"] = drained.misses }
        if drained.damagedReads > 0 { counters["damaged_reads"] = drained.damagedReads }
        let head: UInt64
        if let prefilled {
            head = try index.writer.completeTransaction {
                try index.adjustTotals(prefilled.change)
                return try mirror.catchUpInTransaction(accesses: drained.accesses, counters: counters, own: prefilled.own)
            }
        } else {
            head = try mirror.catchUp(accesses: drained.accesses, counters: counters)
        }
        appliedSequence.withLock { $0 = head }
        readSchedule.withLock { $0.persisted(remaining: drained.remaining) }
        // The rest in the next pass, after whatever is queued by then.
        if drained.remaining > 0 { writer.wake() }
    }

    /// The most recorded reads a batch or an idle pass persists: after a burst of reads, persisting
    /// them all at once is long enough for a put queued meanwhile to stall; a bounded batch keeps
    /// that wait short. An eviction, an explicit flush and
    /// closing persist them all, so eviction order and `flush()` see every read.
    static let accessesPerPass = 4096

    var indexFileBytes: Int {
        ([layout.index] + layout.indexSidecars).compactMap(\.fileSize).reduce(0, +)
    }

    // MARK: Limits

    /// Brings the store back within its limits when a batch passed one, before the batch's
    /// operations return; runs after every batch. What remains down to the low-water marks is
    /// left in `evictionDue`, for `process` to run once they have returned (in slices, see
    /// `evict`). During an eviction's slices it evicts only what the batch put over the limits.
    private func enforceLimits() {
        do {
            let totals = try index.totals(on: index.writer)
            let limit = byteLimit(storeBytes: totals.bytes)
            spaceIsTight.withLock { $0 = limit.boundByFreeSpace }
            let overBytes = totals.bytes > limit.bytes
            let overEntries = configuration.entryLimit.map { totals.entries > $0 } ?? false
            guard overBytes || overEntries else { return }
            let limits = (bytes: overBytes ? limit.bytes : nil, entries: overEntries ? configuration.entryLimit : nil)
            if evictionRunning.withLock({ $0 }) {
                _ = try evictSlice(toBytes: limits.bytes, toEntries: limits.entries, mustReach: limits)
                return
            }
            let lowWater = (
                bytes: overBytes ? Int(Double(limit.bytes) * configuration.lowWaterFraction) : nil,
                entries: overEntries ? configuration.entryLowWater : nil)
            if try evictSlice(toBytes: lowWater.bytes, toEntries: lowWater.entries, mustReach: limits).more {
                evictionDue.withLock { $0 = lowWater }
            }
        } catch {
            space.warnOnce("evict", "Eviction failed", error: error)
        }
    }

    /// The byte limit in force: ``StoreConfiguration/byteLimit``, or less when the volume cannot
    /// spare that much (counting the free pages inside LMDB's file, which the store reuses before
    /// the file grows, so evicting lowers the store's bytes without lowering its limit).
    /// LMDB's free list is walked only when the free space binds.
    func byteLimit(storeBytes: Int) -> ByteLimit {
        let quick = space.effectiveLimit(configuredLimit: configuration.byteLimit, storeBytes: storeBytes)
        guard quick.boundByFreeSpace else { return quick }
        let reusable = (try? blobs.reusableBytes()) ?? 0
        return space.effectiveLimit(configuredLimit: configuration.byteLimit, storeBytes: storeBytes, reusableBytes: reusable)
    }

    /// Removes expired, then least recently used entries until both targets hold.
    ///
    /// In slices of at most ``evictionSliceEntries`` entries (fewer in a large store, see
    /// ``EvictionSliceSize``), each its own transaction: between
    /// two slices the writer commits the puts, updates and removals queued meanwhile (those at
    /// the head of the queue, so nothing overtakes an operation queued before it), so a put
    /// issued during a mass eviction waits for one slice, not for the whole eviction. The
    /// order holds across slices: each slice takes the first victims of what is left.
    func evict(toBytes byteTarget: Int?, toEntries entryTarget: Int?) throws -> WriteOutcome {
        evictionRunning.withLock { $0 = true }
        defer { evictionRunning.withLock { $0 = false } }
        var entries = 0
        var bytes = 0
        var sliceSize = EvictionSliceSize()
        // Pointers the slices leave in `records`, deleted in digest order (see `deleteStalePointers`).
        // Room for a sweep's worth and one slice more, kept between sweeps: grown by doubling, the
        // list outgrew a sweep's worth by a slice and held its old and new buffers at once.
        var leftPointers: [LeftPointer] = []
        leftPointers.reserveCapacity(Self.stalePointersPerSweep + EvictionSliceSize.initial)
        defer { deleteStalePointers(&leftPointers) }
        while true {
            let started = ContinuousClock.now
            let slice = try evictSlice(
                toBytes: byteTarget, toEntries: entryTarget, mustReach: (nil, nil), atMost: sliceSize.entries,
                keepingPointers: true)
            sliceSize.record(.now - started)
            leftPointers += slice.keptPointers
            entries += slice.entries
            bytes += slice.bytes
            if leftPointers.count >= Self.stalePointersPerSweep { deleteStalePointers(&leftPointers) }
            guard slice.more else { break }
            // A slice dirties many pages; in periodic durability they would all wait for the
            // next marked flush, on this thread. Written back beside it, that flush stays short.
            if case .periodic = configuration.durability { writeback.request(.writeBackBlobs) }
            let queued = writer.takeQueued { StoreCore.commitsInGroup($0) }
            if !queued.isEmpty { runGroup(queued) }
        }
        return .removed(entries: entries, bytes: bytes)
    }

    /// The most entries one eviction slice removes, unless more are needed to bring the store
    /// back within its limits (see `evict`).
    static let evictionSliceEntries = EvictionSliceSize.initial

    /// The most pointers a mass eviction leaves before deleting them (24 bytes each in memory). Each
    /// sweep rewrites about every leaf of `records`, so fewer, larger sweeps cost less time for a
    /// little more peak memory.
    static let stalePointersPerSweep = 1 << 18

    /// Deletes the pointers an eviction left in `records` (see ``LeftPointer``) in digest
    /// order, in transactions of about ``removalsPerTransaction``: each rewrites a run of
    /// neighbouring leaves, where deleting each pointer with its entry rewrote about one leaf per
    /// entry. Each run is sorted just before its transaction, and queued puts are committed
    /// between transactions, so none waits for the whole list's sort. A key put again since
    /// holds another number, which stays; a pointer left by a failure here (a full disk, a crash)
    /// reads as no entry and stays until its key is put again.
    private func deleteStalePointers(_ pointers: inout [LeftPointer]) {
        guard !pointers.isEmpty else { return }
        for run in pointers.partitionIntoKeyOrderRuns(runLength: Self.removalsPerTransaction, by: \.digest) {
            pointers[run].sort()
            let chunk = pointers[run]
            do {
                try blobs.write { txn in
                    let records = try LMDBCursor(txn, blobs.databases.records)
                    for pointer in chunk { _ = try txn.deleteLeftPointer(pointer, records: records) }
                }
            } catch {
                break
            }
            let queued = writer.takeQueued { StoreCore.commitsInGroup($0) }
            if !queued.isEmpty { runGroup(queued) }
        }
        pointers.removeAll(keepingCapacity: true)
    }

    /// Whether the operation is one of those a group commit runs together.
    static func commitsInGroup(_ operation: WriteOperation) -> Bool {
        switch operation {
        case .put, .update, .remove, .removeIfDamaged, .removeOrphanedLogBlobs: true
        default: false
        }
    }

    /// One slice of an eviction: up to `atMost` victims toward the targets, and however many it
    /// takes to reach `mustReach` (the limits a batch has just passed).
    ///
    /// The victims are chosen inside the index transaction that deletes their rows: no other
    /// process writes the index in between, so their rows can go as one range (see
    /// ``MetadataIndex/delete(_:)``). The rows go on the helper thread while LMDB deletes the
    /// entries on this one; SQLite commits only after LMDB has: a crash in between leaves rows
    /// that the next catch-up removes, never an entry without its row.
    private func evictSlice(
        toBytes byteTarget: Int?, toEntries entryTarget: Int?, mustReach: (bytes: Int?, entries: Int?),
        atMost: Int = evictionSliceEntries, keepingPointers: Bool = false
    ) throws -> (entries: Int, bytes: Int, more: Bool, keptPointers: [LeftPointer]) {
        try synchronizeIndexThrowing()
        let index = index
        func excess(of totals: (entries: Int, bytes: Int), over targets: (bytes: Int?, entries: Int?))
            -> (bytes: Int, entries: Int)
        {
            (targets.bytes.map { max(0, totals.bytes - $0) } ?? 0, targets.entries.map { max(0, totals.entries - $0) } ?? 0)
        }
        // Looked at before taking SQLite's write lock too, so a store within its targets takes none.
        let toFree = excess(of: try index.totals(on: index.writer), over: (byteTarget, entryTarget))
        guard toFree.bytes > 0 || toFree.entries > 0 else { return (0, 0, false, []) }
        let (head, slice) = try index.writer.transaction {
            () -> (UInt64?, (entries: Int, bytes: Int, more: Bool, keptPointers: [LeftPointer])) in
            let totals = try index.totals(on: index.writer)
            let (bytesToFree, entriesToFree) = excess(of: totals, over: (byteTarget, entryTarget))
            guard bytesToFree > 0 || entriesToFree > 0 else { return (nil, (0, 0, false, [])) }
            let (bytesRequired, entriesRequired) = excess(of: totals, over: mustReach)
            let candidates = try index.evictionCandidates(
                bytesToFree: bytesToFree, entriesToFree: entriesToFree, now: Date(),
                atMost: atMost, unlessNeededFor: (bytesRequired, entriesRequired))
            guard !candidates.isEmpty else { return (nil, (0, 0, false, [])) }
            let rows = indexHelper.run { Result { try index.delete(candidates) } }
            let removed = Result { try removeVictims(candidates.victims, keepingPointers: keepingPointers) }
            let change = try rows.wait().get()
            let outcome = try removed.get()
            try index.adjustTotals(change)
            let head = try mirror.catchUpInTransaction(
                own: StoreMirror.OwnChanges(
                    journal: outcome.journal, removed: Set(candidates.victims.map(\.digest)),
                    journalNamesOnlyRemoved: outcome.journaledOnlyVictims))
            let more = outcome.entries > 0 && (outcome.bytes < bytesToFree || outcome.entries < entriesToFree)
            return (head, (outcome.entries, outcome.bytes, more, outcome.keptPointers))
        }
        if let head { appliedSequence.withLock { $0 = head } }
        return slice
    }

    /// Deletes entries, found by the numbers their rows name where they can be, journaled, in
    /// transactions of ``removalsPerTransaction``; with `keepingPointers`, logged records'
    /// pointers stay in `records` and are returned, each transaction first raising the store's
    /// number floor past every number in the logs (see ``LeftPointer``). `journal` is the span
    /// of sequences the transactions wrote, when they wrote one unbroken span (no other process
    /// committed between them); `journaledOnlyVictims`, whether it names nothing but victims (no
    /// entry derived from one went with it).
    private func removeVictims(_ victims: [EvictionVictim], keepingPointers: Bool) throws
        -> (entries: Int, bytes: Int, keptPointers: [LeftPointer], journal: JournalSpan?, journaledOnlyVictims: Bool)
    {
        var entries = 0
        var bytes = 0
        var kept: [LeftPointer] = []
        var journal: JournalSpan?
        var journalUnbroken = true
        var journaledOnlyVictims = true
        // Deleted in the logs' order: in access order, the entries last read (or stored) in the
        // same millisecond come in digest order, and each took the cursors on the logs off their
        // page and down from the root again. Victims without a number last, by digest.
        let victims = victims.sorted {
            ($0.blobNumber ?? .max, $0.digest) < ($1.blobNumber ?? .max, $1.digest)
        }
        // Small values sit inside LMDB's leaf pages, so deleting them dirties those pages, which
        // LMDB holds in memory until commit (and caps per transaction): commit in bounded chunks.
        for start in stride(from: 0, to: victims.count, by: Self.removalsPerTransaction) {
            let chunk = victims[start..<min(start + Self.removalsPerTransaction, victims.count)]
            let trimThrough = trimmableSequence
            // The body may run again (a grown map, a released reserve): count in it, per run.
            let freed = try freeingSpace {
                try blobs.write { txn -> (entries: Int, bytes: Int, kept: [LeftPointer], journal: JournalSpan, derived: Int) in
                    var info = try txn.storeInfo(blobs.databases) ?? StoreInfo.fresh()
                    let headBefore = info.head
                    try txn.trimJournal(through: trimThrough, info: &info, blobs.databases)
                    if keepingPointers { try txn.raiseNumberFloor(&info, blobs.databases) }
                    var changes = ChangeSet(txn: txn, databases: blobs.databases, mergesTouches: false)
                    var freed = (entries: 0, bytes: 0)
                    for victim in chunk {
                        if let size = try changes.delete(
                            victim.digest, keepingPointer: keepingPointers, blobNumber: victim.blobNumber)
                        {
                            freed.entries += 1
                            freed.bytes += size
                        }
                    }
                    freed.entries += changes.derivedRemoved.entries
                    freed.bytes += changes.derivedRemoved.bytes
                    changes.raiseFloorPastDroppedPairs(&info)
                    try txn.appendJournal(changes.touched, info: &info, blobs.databases)
                    try txn.writeStoreInfo(info, blobs.databases)
                    return (
                        freed.entries, freed.bytes, changes.keptPointers, JournalSpan(after: headBefore, through: info.head),
                        changes.derivedRemoved.entries
                    )
                }
            }
            entries += freed.entries
            bytes += freed.bytes
            kept += freed.kept
            journaledOnlyVictims = journaledOnlyVictims && freed.derived == 0
            if let span = journal {
                journalUnbroken = journalUnbroken && span.through == freed.journal.after
                journal = JournalSpan(after: span.after, through: freed.journal.through)
            } else {
                journal = freed.journal
            }
        }
        return (entries, bytes, kept, journalUnbroken ? journal : nil, journaledOnlyVictims)
    }

    /// The most entries one LMDB transaction deletes (see `removeVictims`).
    static let removalsPerTransaction = 4096

    /// Empties LMDB and marks the journal as unusable, so the mirror rebuilds (emptying) the index.
    private func removeEverything() throws {
        try blobs.write { txn in
            var info = try txn.storeInfo(blobs.databases) ?? StoreInfo.fresh()
            // No number in use is given again: the tail's indexes in other processes have read them.
            try txn.raiseNumberFloor(&info, blobs.databases)
            try txn.empty(blobs.databases.records)
            try txn.empty(blobs.databases.pointerTail)
            try txn.empty(blobs.databases.blobLog)
            try txn.empty(blobs.databases.recordLog)
            try txn.empty(blobs.databases.journal)
            try txn.empty(blobs.databases.dependents)
            info.nextSequence += 1
            info.trimmedThrough = info.head
            try txn.writeStoreInfo(info, blobs.databases)
        }
        // The journal was emptied on purpose: rebuild (to empty) without logging it as a recovery.
        // LMDB is empty either way; on a full disk the index empties at its next catch-up.
        do {
            let head = try mirror.catchUp(forceRebuild: true)
            appliedSequence.withLock { $0 = head }
        } catch let error as StorageError where error.isOutOfSpace {
            space.warnOnce("index", "The disk is full: the index will be emptied once there is room", error: error)
        }
    }
}
