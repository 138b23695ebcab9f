import Foundation

/// The writer's batches: group commits of puts, updates and removals, and the operations that run alone.
extension StoreCore {
    /// Commits the batch's leading puts, updates and removals as one group, then runs the next
    /// operation on its own; what follows goes back to the head of the queue first, so an eviction
    /// that commits queued puts between its slices takes them in the order they were queued.
    func process(_ batch: [StoreWriter.Pending]) {
        let group = batch.prefix { Self.commitsInGroup($0.operation) }
        runGroup(Array(group))
        let rest = batch.dropFirst(group.count)
        if let next = rest.first {
            writer.putBack(Array(rest.dropFirst()))
            run(next)
        }
        if let lowWater = eviction.withLock({ state in defer { state.due = nil }; return state.due }) {
            do {
                _ = try evict(toBytes: lowWater.bytes, toEntries: lowWater.entries)
            } catch {
                space.warnOnce("evict", "Eviction failed", error: error)
            }
        }
        mergePointersIfDue()
    }

    /// Commits many puts, updates and removals as one LMDB transaction, then mirrors and enforces limits.
    ///
    /// While writes are paused for lack of space, puts and updates fail at once with the error that
    /// paused them (unless the volume or LMDB's free pages now hold room for them), and removals
    /// still run, with the space reserve's help: they are what makes room.
    func runGroup(_ items: [StoreWriter.Pending]) {
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

    func commitGroup(_ items: [StoreWriter.Pending], evictedForRoom: Bool = false) {
        guard !items.isEmpty else { return }
        let removalsOnly = items.allSatisfy(\.operation.isRemoval)
        // The puts' index rows are upserted beside LMDB's transaction (see IndexPrefill).
        let prefill = removalsOnly ? nil : IndexPrefill.start(items, blobs: blobs, index: index, helper: mirroring.helper)
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
                    changes.numbers.raiseFloorPastDroppedPairs(&info)
                    try txn.appendJournal(changes.touched, info: &info, self.blobs.databases)
                    try txn.writeStoreInfo(info, self.blobs.databases)
                    return (outcomes, changes.putRecords, JournalSpan(after: headBefore, through: info.head))
                }
            }
            committed = removalsOnly ? try space.freeingSpace(commit) : try commit()
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
        // Before the puts return: a caller that has its answer finds the map released.
        blobs.releaseMappedPagesIfDue()
        for (item, result) in zip(items, committed.outcomes) { item.completion(.success(result)) }
        durability.flushState.withLock { $0.pending = true }
        flushIfDue()
        checkpointIndexIfLarge()
    }

    func run(_ item: StoreWriter.Pending) {
        let result: Result<WriteOutcome, any Error>
        do {
            switch item.operation {
            case .removeAll:
                try space.freeingSpace { try removeEverything() }
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
        durability.flushState.withLock { $0.pending = true }
        flushIfDue()
        checkpointIndexIfLarge()
    }

    /// Whether the operation is one of those a group commit runs together.
    static func commitsInGroup(_ operation: WriteOperation) -> Bool {
        switch operation {
        case .put, .update, .remove, .removeIfDamaged, .removeOrphanedLogBlobs: true
        default: false
        }
    }
}
