import CLMDB
import Foundation

/// Eviction, from the limits a batch passed to the slices that remove the victims.
extension StoreCore {
    /// Brings the store back within its limits when a batch passed one, before the batch's
    /// operations return; runs after every batch. What remains down to the low-water marks is
    /// left in the eviction state's `due`, for `process` to run once they have returned (in
    /// slices, see `evict`). During an eviction's slices it evicts only what the batch put over
    /// the limits.
    func enforceLimits() {
        do {
            let totals = try index.totals(on: index.writer)
            let limit = byteLimit(storeBytes: totals.bytes)
            space.isTight = limit.boundByFreeSpace
            let overBytes = totals.bytes > limit.bytes
            let overEntries = configuration.entryLimit.map { totals.entries > $0 } ?? false
            guard overBytes || overEntries else { return }
            let limits = (bytes: overBytes ? limit.bytes : nil, entries: overEntries ? configuration.entryLimit : nil)
            if eviction.withLock({ $0.running }) {
                _ = try evictSlice(toBytes: limits.bytes, toEntries: limits.entries, mustReach: limits)
                return
            }
            let lowWater = (
                bytes: overBytes ? Int(Double(limit.bytes) * configuration.lowWaterFraction) : nil,
                entries: overEntries ? configuration.entryLowWater : nil)
            if try evictSlice(toBytes: lowWater.bytes, toEntries: lowWater.entries, mustReach: limits).more {
                eviction.withLock { $0.due = lowWater }
            }
        } catch {
            space.warnOnce("evict", "Eviction failed", error: error)
        }
    }

    /// Evicts the least recently used entries so that a batch of `bytes` finds room inside the
    /// files; returns whether anything was evicted.
    func evictForRoom(_ bytes: Int) -> Bool {
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

    /// Removes expired, then least recently used entries until both targets hold.
    ///
    /// In slices of at most ``evictionSliceEntries`` entries (fewer in a large store, see
    /// ``EvictionSliceSize``), each its own transaction: between
    /// two slices the writer commits the puts, updates and removals queued meanwhile (those at
    /// the head of the queue, so nothing overtakes an operation queued before it), so a put
    /// issued during a mass eviction waits for one slice, not for the whole eviction. The
    /// order holds across slices: each slice takes the first victims of what is left.
    func evict(toBytes byteTarget: Int?, toEntries entryTarget: Int?) throws -> WriteOutcome {
        eviction.withLock { $0.running = true }
        defer { eviction.withLock { $0.running = false } }
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
            if case .periodic = configuration.durability { durability.writeback.request(.writeBackBlobs) }
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
    func deleteStalePointers(_ pointers: inout [LeftPointer]) {
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

    /// One slice of an eviction: up to `atMost` victims toward the targets, and however many it
    /// takes to reach `mustReach` (the limits a batch has just passed).
    ///
    /// The victims are chosen inside the index transaction that deletes their rows: no other
    /// process writes the index in between, so their rows can go as one range (see
    /// ``MetadataIndex/delete(_:)``). The rows go on the helper thread while LMDB deletes the
    /// entries on this one; SQLite commits only after LMDB has: a crash in between leaves rows
    /// that the next catch-up removes, never an entry without its row.
    func evictSlice(
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
            let rows = mirroring.helper.run { Result { try index.delete(candidates) } }
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
        if let head { mirroring.appliedSequence.withLock { $0 = head } }
        return slice
    }

    /// Deletes entries, found by the numbers their rows name where they can be, journaled, in
    /// transactions of ``removalsPerTransaction``; with `keepingPointers`, logged records'
    /// pointers stay in `records` and are returned, each transaction first raising the store's
    /// number floor past every number in the logs (see ``BlobNumbers``). `journal` is the span
    /// of sequences the transactions wrote, when they wrote one unbroken span (no other process
    /// committed between them); `journaledOnlyVictims`, whether it names nothing but victims (no
    /// entry derived from one went with it).
    func removeVictims(_ victims: [EvictionVictim], keepingPointers: Bool) throws
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
            let freed = try space.freeingSpace {
                try blobs.write { txn -> (entries: Int, bytes: Int, kept: [LeftPointer], journal: JournalSpan, derived: Int) in
                    var info = try txn.storeInfo(blobs.databases) ?? StoreInfo.fresh()
                    let headBefore = info.head
                    try txn.trimJournal(through: trimThrough, info: &info, blobs.databases)
                    if keepingPointers { try BlobNumbers.raiseFloorPastLogs(&info, txn, blobs.databases) }
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
                    changes.numbers.raiseFloorPastDroppedPairs(&info)
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
}
