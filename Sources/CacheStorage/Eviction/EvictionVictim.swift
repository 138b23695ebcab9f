/// An entry eviction has chosen: its index row, and the blob log number its record names when
/// the row knows it.
///
/// A record in the record log sits under its blob's number (see ``RecordLocation``), and `records`
/// maps each digest to that number: finding a victim's record by digest is a descent into that
/// large, random-keyed tree, on pages a cold store reads from disk. The row keeps the number, so
/// the record is found by number, in about the order eviction takes them, which halves LMDB's part
/// of a mass eviction and the cold pages it reads. A logged record is filed under its
/// entry's digest, so a number that no longer names that digest's record (a row behind LMDB) is
/// told apart, and the lookup by digest runs instead.
struct EvictionVictim: Hashable, Sendable {
    let row: IndexRowKey
    /// Nil for a row whose record named no number (a damaged record: every stored one names one).
    let blobNumber: UInt64?

    var digest: KeyDigest { row.digest }
}
