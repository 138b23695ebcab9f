import Foundation

/// Where an entry's row sits in the index: the time it was stored, then its digest.
///
/// Rows are ordered by the time they were stored, not by digest: a digest is a hash, so rows keyed
/// by it land on a random page each, and a batch of 64 small puts rewrote about 64 pages of the
/// table into the write-ahead log. Keyed by time, new rows append to the table's last pages and to
/// the access-order index's, and the oldest rows, which eviction takes first, lie together at the
/// front. The record beside each blob in LMDB holds the stored-at time, so every path that has an
/// entry's record (a read, a replay of the journal, a deletion) knows its row without a lookup by
/// digest, and the journal keeps the stored-at time of each row a deletion or replacement left
/// behind (see ``JournalItem``).
struct IndexRowKey: Hashable, Sendable {
    /// Milliseconds since 1970, as the `stored_at` column holds them.
    let storedAt: Int64
    let digest: KeyDigest

    init(storedAt milliseconds: Int64, digest: KeyDigest) {
        storedAt = milliseconds
        self.digest = digest
    }

    /// The row of the entry whose record holds `metadata`: the one rule every path uses, so a row
    /// written from a record is found again from the same record.
    init(_ metadata: EntryMetadata, digest: KeyDigest) {
        self.init(storedAt: metadata.storedAt.millisecondsSince1970, digest: digest)
    }

    /// The row of the entry whose encoded record is `record`, reading only the record's fixed
    /// head (so a record damaged further on still names its row); nil when not even that reads.
    init?(record: UnsafeRawBufferPointer, digest: KeyDigest) {
        guard let storedAt = EntryRecord.storedAt(in: record) else { return nil }
        self.init(storedAt: storedAt.millisecondsSince1970, digest: digest)
    }
}
