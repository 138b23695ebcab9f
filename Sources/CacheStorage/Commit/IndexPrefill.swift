import Foundation

/// The index rows of a group commit's puts, upserted on the ``IndexHelper`` while the writer
/// thread commits the group to LMDB.
///
/// Mirroring a commit after it, on the writer, took nearly as long as LMDB's transactions
/// themselves, most of it the rows' upserts and reading back the records just written. A put's
/// row follows from the
/// record it prepared before the commit and the blob number the commit gives it, which is known
/// beforehand: numbers are given in order from the first free one (``BlobNumbers``), read
/// just before the commit. So the writer begins the index's transaction first, the helper upserts
/// those rows beside LMDB's work, and once LMDB has committed the writer finishes the catch-up in
/// the same transaction, taking the rows as done (``StoreMirror/OwnChanges``). The index still
/// commits after LMDB, and a put still returns once its row is in the index and the limits have
/// been enforced. A row the commit did not leave as predicted (a put refused, a key updated or
/// removed later in the group, numbers taken by another process's commit in between) rolls the
/// whole index transaction back, and the catch-up runs as before.
struct IndexPrefill {
    /// Each put digest's record as its last put in the group prepared it, and its blob number.
    private let predicted: [KeyDigest: ChangeSet.PutRecord]
    /// The upserts' change to the totals, and the row each predicted digest was given.
    private let upserts: IndexHelper.Job<Result<(change: TotalsChange, rows: [KeyDigest: IndexRowKey]), any Error>>
    private let index: MetadataIndex

    /// Begins the index's transaction and hands the upserts of `items`' puts to `helper`; nil
    /// when the group holds no put, the logs cannot be read, or the index's write lock is not
    /// free at once (another process is writing it): the catch-up then runs after the commit, as
    /// it always can.
    static func start(
        _ items: [StoreWriter.Pending], blobs: BlobStore, index: MetadataIndex, helper: IndexHelper
    ) -> IndexPrefill? {
        // The group's puts in commit order: each takes the next number.
        let puts = items.flatMap { item -> [PreparedPut] in
            if case let .put(entries) = item.operation { entries } else { [] }
        }
        guard !puts.isEmpty else { return nil }
        let firstNumber: UInt64
        do {
            firstNumber = try blobs.read { try BlobNumbers.firstFree($0, blobs.databases) }
        } catch {
            return nil
        }
        var predicted: [KeyDigest: ChangeSet.PutRecord] = [:]
        for (offset, entry) in puts.enumerated() {
            predicted[entry.digest] = ChangeSet.PutRecord(
                record: entry.record, blobNumber: firstNumber + UInt64(offset))
        }
        guard index.beginWriteIfFree() else { return nil }
        let rows = predicted
        let upserts = helper.run { () -> Result<(change: TotalsChange, rows: [KeyDigest: IndexRowKey]), any Error> in
            Result {
                var change = TotalsChange()
                var upserted: [KeyDigest: IndexRowKey] = [:]
                upserted.reserveCapacity(rows.count)
                for (digest, put) in rows {
                    guard let metadata = put.record.withUnsafeBytes({ EntryRecord.decode($0) }) else {
                        throw UnreadableRecord()
                    }
                    change += try index.upsert(digest: digest, metadata: metadata, blobNumber: put.blobNumber)
                    upserted[digest] = IndexRowKey(metadata, digest: digest)
                }
                return (change, upserted)
            }
        }
        return IndexPrefill(predicted: predicted, upserts: upserts, index: index)
    }

    /// Waits for the upserts. When the commit left every predicted digest with its predicted
    /// record and number (`committed`: each digest's at the end of the transaction, ``ChangeSet``),
    /// returns what the catch-up may take as done, the index's transaction still open for it;
    /// otherwise rolls the transaction back and returns nil.
    func finish(committed: [KeyDigest: ChangeSet.PutRecord], journal: JournalSpan) -> (change: TotalsChange, own: StoreMirror.OwnChanges)? {
        guard case let .success(done) = upserts.wait(),
            predicted.allSatisfy({ committed[$0.key] == $0.value })
        else {
            index.writer.rollBack()
            return nil
        }
        return (done.change, StoreMirror.OwnChanges(journal: journal, upserted: done.rows))
    }

    /// Waits for the upserts and rolls them back: the commit failed.
    func abandon() {
        _ = upserts.wait()
        index.writer.rollBack()
    }

    /// A prepared record that does not decode (never, for one this version encoded).
    private struct UnreadableRecord: Error {}
}
