import Foundation
import Logging

/// Brings the SQLite index up to date with LMDB, which is where an entry's commit happens.
///
/// It replays the items journaled since the index's `applied_seq`: each digest's current record,
/// if present, is upserted at its row, and the rows the item names as left behind (by a deletion,
/// or a replacement stored at another time; see ``JournalItem``) are deleted. Replay is idempotent
/// and order-free, so any process may catch up for all of them, after any crash. When the journal
/// cannot vouch for the gap (the index is from another store, is ahead of LMDB, or fell behind a
/// trim), it rebuilds the index from LMDB's records instead.
struct StoreMirror {
    let blobs: BlobStore
    let index: MetadataIndex
    let logger: Logger

    /// Catches up inside one SQLite write transaction; returns the sequence now mirrored.
    @discardableResult
    func catchUp(accesses: [IndexRowKey: Int64] = [:], counters: [String: Int64] = [:], forceRebuild: Bool = false)
        throws -> UInt64
    {
        try index.writer.transaction {
            try catchUpInTransaction(accesses: accesses, counters: counters, forceRebuild: forceRebuild)
        }
    }

    /// Catches up, or rebuilds the index from LMDB (`forceRebuild`); when SQLite finds the index
    /// malformed on the way, its file is emptied first and every row comes back from LMDB (the
    /// access times and counters a damaged file held are lost with it). Every byte the index holds
    /// can be rebuilt, so damage there never fails an open or a repair.
    @discardableResult
    func catchUpReplacingDamage(forceRebuild: Bool = false) throws -> UInt64 {
        do {
            return try catchUp(forceRebuild: forceRebuild)
        } catch where MetadataIndex.isDamage(error) {
            try replaceDamagedIndex()
            return try catchUp(forceRebuild: true)
        }
    }

    /// Empties the index's file, for a rebuild from LMDB.
    func replaceDamagedIndex() throws {
        logger.error("Cache index is damaged; replacing it with one rebuilt from the blob store")
        try index.replaceWithEmpty()
    }

    /// What the caller already did to the index, in the write transaction the catch-up joins, for
    /// commits of its own.
    struct OwnChanges {
        /// The span of the journal the caller's commits wrote, when one unbroken span. When it is
        /// all the replay has to read, no other process changed those digests since, and the
        /// caller's word is taken for them without reading their records (one lookup in `records`
        /// each: a third of a mass eviction's replay, a tenth of a group commit's).
        var journal: JournalSpan?
        /// Digests whose entries the caller deleted, and whose rows it deleted: when their records
        /// are absent, the replay skips them (their records unread, when the journal is the caller's).
        var removed: Set<KeyDigest> = []
        /// Digests whose rows the caller upserted from the records its commit wrote (see
        /// ``IndexPrefill``), with those rows: taken as done when the journal is the caller's.
        var upserted: [KeyDigest: IndexRowKey] = [:]
        /// Whether every digest `journal` names is in `removed` (an eviction slice that took no
        /// derived entry with its victims): when the journal is the caller's, the replay would
        /// skip every item, so it does not read them (a tenth of a slice's catch-up).
        var journalNamesOnlyRemoved = false
    }

    /// The same, inside a write transaction the caller holds; `own` is what the caller already
    /// did in it (see ``OwnChanges``).
    func catchUpInTransaction(
        accesses: [IndexRowKey: Int64] = [:], counters: [String: Int64] = [:], forceRebuild: Bool = false,
        own: OwnChanges = OwnChanges()
    ) throws -> UInt64 {
        do {
            let state = try index.mirrorState()
            let head: UInt64 = try blobs.read { txn in
                guard let info = try txn.storeInfo(blobs.databases) else { return 0 }
                let sameStore = state.storeID == info.storeID
                let journalUsable = sameStore && state.appliedSequence <= info.head
                    && state.appliedSequence >= info.trimmedThrough
                let onlyOwn = own.journal == JournalSpan(after: state.appliedSequence, through: info.head)
                let replays = journalUsable && !forceRebuild && state.appliedSequence < info.head
                    && !(onlyOwn && own.journalNamesOnlyRemoved)
                if forceRebuild || !journalUsable {
                    if !forceRebuild && state.storeID != nil {
                        logger.notice(
                            "Rebuilding the metadata index from the blob store",
                            metadata: [
                                "index-applied": "\(state.appliedSequence)", "journal-head": "\(info.head)",
                                "trimmed-through": "\(info.trimmedThrough)", "same-store": "\(sameStore)",
                            ])
                    }
                    try index.adjustTotals(rebuild(txn))
                } else if state.appliedSequence < info.head {
                    var change = TotalsChange()
                    var leftBehind: [IndexRowKey] = []
                    do {
                        let items = replays ? try txn.journalItems(after: state.appliedSequence, blobs.databases) : []
                        try replay(items, in: txn, own: own, onlyOwn: onlyOwn, change: &change, leftBehind: &leftBehind)
                    } catch let error as StorageError where error.meansDamagedPages {
                        // The journal, or a record it names, lies on a damaged page: what was
                        // replayed stays counted, and a rebuild from what can be read does the rest.
                        try index.adjustTotals(change)
                        logger.error("The blob store's journal is damaged; rebuilding the index from what can be read")
                        change = try rebuild(txn)
                        leftBehind = []
                    }
                    change += try index.delete(rows: leftBehind)
                    try index.adjustTotals(change)
                }
                // Written only when it moved: a catch-up with nothing to do writes nothing, so
                // opening a store on a full disk needs no free space.
                if state.storeID != info.storeID || state.appliedSequence != info.head {
                    try index.setMirrorState(storeID: info.storeID, appliedSequence: info.head)
                }
                return info.head
            }
            if !accesses.isEmpty { try index.recordAccesses(accesses) }
            if !counters.isEmpty { try index.addToCounters(counters) }
            return head
        }
    }

    /// Applies journal `items` to the index: each named digest's row from its current record,
    /// the rows it left behind collected in `leftBehind` (see ``OwnChanges`` for `own`).
    private func replay(
        _ items: [JournalItem], in txn: LMDBTransaction, own: OwnChanges, onlyOwn: Bool, change: inout TotalsChange,
        leftBehind: inout [IndexRowKey]
    ) throws {
        for item in items {
            let digest = item.digest
            if onlyOwn && own.removed.contains(digest) { continue }
            let current: IndexRowKey?
            var unreadable: IndexRowKey?
            if onlyOwn, let upserted = own.upserted[digest] {
                current = upserted
            } else {
                let record = try txn.record(of: digest, blobs.databases)?.bytes
                if record == nil && own.removed.contains(digest) { continue }
                // A record that does not decode is not an entry to list: its row goes.
                let metadata = record.flatMap(EntryRecord.decode)
                current = metadata.map { IndexRowKey($0, digest: digest) }
                if let metadata, let record {
                    change += try index.upsert(
                        digest: digest, metadata: metadata, blobNumber: EntryRecord.blobNumber(in: record))
                }
                unreadable = metadata == nil ? record.flatMap { IndexRowKey(record: $0, digest: digest) } : nil
            }
            for storedAt in item.rowsLeft + (unreadable.map { [$0.storedAt] } ?? []) {
                let row = IndexRowKey(storedAt: storedAt, digest: digest)
                if row != current { leftBehind.append(row) }
            }
        }
    }

    private func rebuild(_ txn: LMDBTransaction) throws -> TotalsChange {
        var stale = try index.allRows()
        var change = TotalsChange()
        let skipped = try txn.forEachRecord(blobs.databases) { digest, record in
            if let metadata = EntryRecord.decode(record.bytes) {
                change += try index.upsert(
                    digest: digest, metadata: metadata, blobNumber: EntryRecord.blobNumber(in: record.bytes))
                stale.remove(IndexRowKey(metadata, digest: digest))
            }
            return true
        }
        if skipped > 0 {
            logger.error(
                "The blob store is damaged: the index was rebuilt from what could be read; run `cachectl verify --repair`",
                metadata: ["damaged-stretches": "\(skipped)"])
        }
        change += try index.delete(rows: stale)
        return change
    }
}
