import Foundation

/// The writer's idle pass, compaction and emptying the store.
extension StoreCore {
    /// With no operations queued: persist recorded reads, sync in relaxed mode, clear stale readers.
    func idlePass() {
        space.replenishReserveIfDue()
        let waiting = mirroring.accessLog.waiting()
        let decision = mirroring.readSchedule.withLock {
            $0.decide(waiting: waiting.count, newestRead: waiting.newestRead, now: Date().millisecondsSince1970)
        }
        switch decision {
        case .persist:
            synchronizeIndex(accessLimit: Self.accessesPerPass)
            // Beside the writer: after a run of reads the log holds their access times, and
            // copying it back on the writer would make a put arriving meanwhile wait it out.
            if index.uncheckpointedLogBytes > 0 { durability.writeback.request(.checkpointIndex) }
        case .wait(let milliseconds):
            // Reads are still arriving: the index (and another process's commits it would mirror)
            // waits with them, at most `ReadPersistenceSchedule.longestWait`.
            writer.requestPass(at: Date(millisecondsSince1970: milliseconds))
        }
        flushIfDue(soon: true)
        blobs.clearStaleReadersIfDue()
    }

    /// LMDB first (on a full disk it frees the most, and its copy of the remaining data is what
    /// fits), then the index, whose vacuum needs room for a copy of it: skipped when there is none.
    func compact() throws -> WriteOutcome {
        do {
            try synchronizeIndexThrowing()
        } catch let error as StorageError where error.isOutOfSpace {
            space.warnOnce("index", "The disk is full: compacting without bringing the index up to date first", error: error)
        }
        let indexBefore = indexFileBytes
        let lmdb = try space.freeingSpace { try blobs.compactInPlace() }
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

    /// Empties LMDB and marks the journal as unusable, so the mirror rebuilds (emptying) the index.
    func removeEverything() throws {
        try blobs.write { txn in
            var info = try txn.storeInfo(blobs.databases) ?? StoreInfo.fresh()
            try BlobNumbers.raiseFloorPastLogs(&info, txn, blobs.databases)
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
            mirroring.appliedSequence.withLock { $0 = head }
        } catch let error as StorageError where error.isOutOfSpace {
            space.warnOnce("index", "The disk is full: the index will be emptied once there is room", error: error)
        }
    }
}
