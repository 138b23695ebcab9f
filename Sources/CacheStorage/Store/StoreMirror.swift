import Foundation
import Logging

/// Brings the SQLite index up to date with LMDB, which is where an entry's commit happens.
///
/// It replays the digests journaled since the index's `applied_seq`, reading each one's current
/// record: present means upsert, absent means delete. Replay is idempotent and order-free, so any
/// process may catch up for all of them, after any crash. When the journal cannot vouch for the
/// gap (the index is from another store, is ahead of LMDB, or fell behind a trim), it rebuilds the
/// index from LMDB's records instead.
struct StoreMirror {
    let blobs: BlobStore
    let index: MetadataIndex
    let logger: Logger

    /// Catches up inside one SQLite write transaction; returns the sequence now mirrored.
    @discardableResult
    func catchUp(accesses: [KeyDigest: Int64] = [:], counters: [String: Int64] = [:], forceRebuild: Bool = false)
        throws -> UInt64
    {
        try index.writer.transaction {
            try catchUpInTransaction(accesses: accesses, counters: counters, forceRebuild: forceRebuild)
        }
    }

    /// The same, inside a write transaction the caller holds. `removedRows` are digests whose rows
    /// the caller already deleted in it: when their records are still absent, replay skips them.
    func catchUpInTransaction(
        accesses: [KeyDigest: Int64] = [:], counters: [String: Int64] = [:], forceRebuild: Bool = false,
        removedRows: Set<KeyDigest> = []
    ) throws -> UInt64 {
        do {
            let state = try index.mirrorState()
            let head: UInt64 = try blobs.read { txn in
                guard let info = try txn.storeInfo(blobs.databases) else { return 0 }
                let sameStore = state.storeID == info.storeID
                if forceRebuild || !sameStore || state.appliedSequence > info.head
                    || state.appliedSequence < info.trimmedThrough
                {
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
                    var absent: [KeyDigest] = []
                    for digest in try txn.journalDigests(after: state.appliedSequence, blobs.databases) {
                        let record = try digest.withBytes { try txn.get(blobs.databases.records, key: $0) }
                        if record == nil && removedRows.contains(digest) { continue }
                        if let record, let metadata = EntryRecord.decode(record) {
                            change += try index.upsert(digest: digest, metadata: metadata)
                        } else {
                            // Absent, or a record this version cannot read: not an entry to list.
                            absent.append(digest)
                        }
                    }
                    change += try index.delete(digests: absent)
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

    private func rebuild(_ txn: LMDBTransaction) throws -> TotalsChange {
        var stale = try index.allDigests()
        var change = TotalsChange()
        try txn.forEach(blobs.databases.records) { key, value in
            if let digest = KeyDigest(bytes: key), let metadata = EntryRecord.decode(value) {
                change += try index.upsert(digest: digest, metadata: metadata)
                stale.remove(digest)
            }
            return true
        }
        change += try index.delete(digests: Array(stale))
        return change
    }
}
