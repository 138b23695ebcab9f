/// A change to the `totals` row, summed over a transaction.
struct TotalsChange {
    var entries: Int64 = 0
    var bytes: Int64 = 0

    static func += (total: inout TotalsChange, change: TotalsChange) {
        total.entries += change.entries
        total.bytes += change.bytes
    }
}
