/// Arithmetic on sizes read from a file, which refuses the file instead of trapping on overflow.
enum Checked {
    /// `lhs + rhs`, or a malformed-file failure when it overflows.
    static func add(_ lhs: Int, _ rhs: Int) throws(ParseFailure) -> Int {
        let (sum, overflow) = lhs.addingReportingOverflow(rhs)
        guard !overflow else { throw .malformed("sizes in the file overflow when added") }
        return sum
    }

    /// `lhs × rhs`, or a malformed-file failure when it overflows.
    static func multiply(_ lhs: Int, _ rhs: Int) throws(ParseFailure) -> Int {
        let (product, overflow) = lhs.multipliedReportingOverflow(by: rhs)
        guard !overflow else { throw .malformed("sizes in the file overflow when multiplied") }
        return product
    }
}
