import Foundation

extension Date {
    /// Milliseconds since 1970: the one time representation both stores use, so they agree exactly.
    var millisecondsSince1970: Int64 {
        Int64((timeIntervalSince1970 * 1000).rounded(.down))
    }

    init(millisecondsSince1970 milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}

extension Duration {
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
