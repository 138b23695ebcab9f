/// A number a mass eviction left in `records` under a victim's digest: the victim's logged record
/// and blob went in its slice, the number goes in a sweep once the slices are done (see
/// ``RecordLocation``).
///
/// The pointer is stale while `records` still holds that number under the digest: before deleting
/// the record, the slice raised the store's number floor past it (see ``BlobNumbers``). A put of
/// the same key since has stored its own, higher number
/// there, and that pointer stays. So the sweep compares the value with the number it kept; it had
/// looked each number up in the record log, a third of the sweep's time.
struct LeftPointer: Comparable, Sendable {
    let digest: KeyDigest
    let number: UInt64

    static func < (lhs: LeftPointer, rhs: LeftPointer) -> Bool {
        (lhs.digest, lhs.number) < (rhs.digest, rhs.number)
    }
}

extension LMDBTransaction {
    /// Deletes `left`'s pointer when `records` still holds its number under its digest; returns
    /// whether it did. `records` is a cursor on `records`: pointers taken in digest order are
    /// found on its current page.
    func deleteLeftPointer(_ left: LeftPointer, records: LMDBCursor) throws -> Bool {
        guard let value = try left.digest.withBytes({ try records.find($0) }),
            RecordLocation.number(inRecordsValue: value) == left.number
        else { return false }
        try records.deleteFound()
        return true
    }
}
