import Foundation

/// Bringing the index up to date with LMDB and persisting recorded reads.
extension StoreCore {
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

    func synchronizeIndexThrowing(
        accessLimit: Int = .max, prefilled: (change: TotalsChange, own: StoreMirror.OwnChanges)? = nil
    ) throws {
        let drained = mirroring.accessLog.drain(limit: accessLimit)
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
        mirroring.appliedSequence.withLock { $0 = head }
        mirroring.readSchedule.withLock { $0.persisted(remaining: drained.remaining) }
        // The rest in the next pass, after whatever is queued by then.
        if drained.remaining > 0 { writer.wake() }
    }

    /// Rebuilds the index from LMDB. With `replacingDamage`, or when SQLite finds the file
    /// malformed on the way, the file is emptied first: every row comes back from LMDB, and the
    /// access times and counters a damaged file held are lost with it.
    func rebuildIndex(replacingDamage: Bool) throws {
        if replacingDamage { try mirror.replaceDamagedIndex() }
        let head = try mirror.catchUpReplacingDamage(forceRebuild: true)
        mirroring.appliedSequence.withLock { $0 = head }
    }

    /// The most recorded reads a batch or an idle pass persists: after a burst of reads, persisting
    /// them all at once is long enough for a put queued meanwhile to stall; a bounded batch keeps
    /// that wait short. An eviction, an explicit flush and
    /// closing persist them all, so eviction order and `flush()` see every read.
    static let accessesPerPass = 4096

    var indexFileBytes: Int {
        ([layout.index] + layout.indexSidecars).compactMap(\.fileSize).reduce(0, +)
    }
}
