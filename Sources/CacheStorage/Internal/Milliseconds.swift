import Foundation

extension Date {
    /// Milliseconds since 1970: the one time representation both stores use, so they agree exactly.
    ///
    /// Saturates at `Int64`'s ends (about ±292 million years) rather than trapping: a query date
    /// computed from a user's "older than 200 billion days" must still compare as far in the past.
    var millisecondsSince1970: Int64 {
        let milliseconds = (timeIntervalSince1970 * 1000).rounded(.down)
        // Double(Int64.max) is 2^63, one past the largest Int64, so it must saturate too.
        if milliseconds >= Double(Int64.max) { return .max }
        if milliseconds <= Double(Int64.min) { return .min }
        // NaN, from arithmetic on infinite intervals, has no place in time; the epoch is as good as any.
        guard !milliseconds.isNaN else { return 0 }
        return Int64(milliseconds)
    }

    init(millisecondsSince1970 milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}

/// The package's one conversion of `Duration` to numbers (every target that needs one asks here).
extension Duration {
    /// Seconds, with the fraction.
    package var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) * 1e-18
    }

    /// Whole milliseconds, saturating at `Int64`'s ends instead of trapping on overflow.
    package var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        let (milliseconds, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        if overflow { return seconds < 0 ? .min : .max }
        let (total, sumOverflow) = milliseconds.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
        return sumOverflow ? (milliseconds < 0 ? .min : .max) : total
    }
}
