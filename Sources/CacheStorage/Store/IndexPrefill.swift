import Foundation

/// The index rows of a group commit's puts, upserted on the ``IndexHelper`` while the writer
/// thread commits the group to LMDB.
///
/// Mirroring a commit had run after it, on the writer: at 1,000,000 small entries, of the
/// writer's 20.6 s, LMDB's transactions took 11.4 s and the catch-up 8.3 s, 4.6 s of it the rows'
/// upserts and 1.1 s reading back and decoding the records just written. A put's row follows
/// from the record it prepared before the commit (the blob number, added in the commit, is not in
/// the row), so the writer begins the index's transaction first, the helper upserts those rows
/// beside LMDB's work, and once LMDB has committed the writer finishes the catch-up in the same
/// transaction, taking the rows as done (``StoreMirror/OwnChanges``). The index still commits
/// after LMDB, and a put still returns once its row is in the index and the limits have been
/// enforced. A row the commit did not leave as predicted (a put refused, a key updated or removed
/// later in the group) rolls the whole index transaction back, and the catch-up runs as before.
struct IndexPrefill {
    /// Each put digest's record as its last put in the group prepared it.
    private let predicted: [KeyDigest: [UInt8]]
    /// The upserts' change to the totals, and the row each predicted digest was given.
    private let upserts: IndexHelper.Job<Result<(change: TotalsChange, rows: [KeyDigest: IndexRowKey]), any Error>>
    private let index: MetadataIndex

    /// Begins the index's transaction and hands the upserts of `items`' puts to `helper`; nil
    /// when the group holds no put or the index's write lock is not free at once (another process
    /// is writing it): the catch-up then runs after the commit, as it always can.
    static func start(_ items: [StoreWriter.Pending], index: MetadataIndex, helper: IndexHelper) -> IndexPrefill? {
        var predicted: [KeyDigest: [UInt8]] = [:]
        for item in items {
            guard case let .put(entries) = item.operation else { continue }
            for entry in entries { predicted[entry.digest] = entry.record }
        }
        guard !predicted.isEmpty else { return nil }
        guard index.beginWriteIfFree() else { return nil }
        let rows = predicted
        let upserts = helper.run { () -> Result<(change: TotalsChange, rows: [KeyDigest: IndexRowKey]), any Error> in
            Result {
                var change = TotalsChange()
                var upserted: [KeyDigest: IndexRowKey] = [:]
                upserted.reserveCapacity(rows.count)
                for (digest, record) in rows {
                    guard let metadata = record.withUnsafeBytes({ EntryRecord.decode($0) }) else { throw UnreadableRecord() }
                    change += try index.upsert(digest: digest, metadata: metadata)
                    upserted[digest] = IndexRowKey(metadata, digest: digest)
                }
                return (change, upserted)
            }
        }
        return IndexPrefill(predicted: predicted, upserts: upserts, index: index)
    }

    /// Waits for the upserts. When the commit left every predicted digest with its predicted
    /// record (`committed`: each digest's record at the end of the transaction, ``ChangeSet``),
    /// returns what the catch-up may take as done, the index's transaction still open for it;
    /// otherwise rolls the transaction back and returns nil.
    func finish(committed: [KeyDigest: [UInt8]], journal: JournalSpan) -> (change: TotalsChange, own: StoreMirror.OwnChanges)? {
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
