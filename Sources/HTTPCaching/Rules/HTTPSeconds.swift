import CacheStorage
import Foundation

/// Conversions between `Duration` (the public unit) and seconds as `Double` (the arithmetic unit).
///
/// Age and freshness are computed from `Date`s, which are `Double` seconds, so the arithmetic
/// stays in `Double` and only the results become `Duration`s.
enum HTTPSeconds {
    /// The largest duration handed out: `Duration` traps on values it cannot hold, and
    /// `.neverExpire` needs a stand-in for "forever".
    static let maximum: Double = Double(Int64.max / 2)

    /// `seconds` as a `Duration`, clamped to `0...maximum` (NaN becomes zero).
    static func duration(_ seconds: Double) -> Duration {
        guard seconds.isFinite || seconds == .infinity else { return .zero }
        return .seconds(min(max(seconds, 0), maximum))
    }
}
