import Foundation

/// A caller's instruction that replaces or lengthens the freshness the response headers give.
///
/// An override is an out-of-band agreement with the origin (RFC 9111 §4.2.4 allows staleness by
/// "configuration"): the caller knows its images better than the server's headers say. While the
/// overridden lifetime lasts, the response is reused without asking the origin, even if it carried
/// `no-cache` or `max-age=0`. Some rules stay in force whatever the override:
/// - `no-store` responses are never stored;
/// - only responses whose status is in `CacheableStatus.overridable` (200, 203, 204, 206, 300, 301, 308)
///   are affected, so an error is never pinned for the override's duration;
/// - request directives (`no-cache`, `max-age`, `min-fresh`) still apply: a user's reload still revalidates.
///
/// ```swift
/// let evaluator = CachePolicyEvaluator(override: .minimumTimeToLive(.seconds(3600)))
/// ```
public enum FreshnessOverride: Sendable, Hashable {
    /// The headers decide (the default).
    case none
    /// Fresh for at least this long, longer if the headers say so.
    case minimumTimeToLive(Duration)
    /// Fresh for exactly this long, whatever the headers say.
    case fixedTimeToLive(Duration)
    /// Fresh for ever: once stored, never revalidated unless a request asks.
    case neverExpire
}
