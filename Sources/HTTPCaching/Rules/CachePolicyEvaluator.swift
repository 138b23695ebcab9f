import Foundation

/// The HTTP caching rules of RFC 9111 for a private (single-user) cache, as pure functions of
/// stored responses, requests and the current time.
///
/// It performs no I/O and keeps no state: the loader asks it what to do, does it, and asks again.
///
/// ```swift
/// let evaluator = CachePolicyEvaluator()
/// switch evaluator.decision(for: request, stored: storedResponse, now: Date()) {
/// case .useStored: // serve storedResponse
/// case .useStoredAndRevalidateInBackground(let conditional): // serve it, then revalidate with `conditional`
/// case .revalidate(let conditional): // send the request with `conditional` added
/// case .fetch: // send the request as is
/// case .unavailable: // only-if-cached and nothing usable: answer 504
/// }
/// ```
///
/// The rules live in extensions by concern: storability (§3), freshness (§4.2), the reuse
/// decision (§4), stale responses (§4.2.4, RFC 5861) and `Vary` (§4.1).
public struct CachePolicyEvaluator: Sendable, Hashable {
    /// The caller's freshness override; ``FreshnessOverride/none`` by default.
    public var override: FreshnessOverride
    /// The fraction of the time since `Last-Modified` a response stays fresh when it has no explicit
    /// freshness (RFC 9111 §4.2.2 suggests 10 %); 0.1 by default.
    public var heuristicFraction: Double
    /// The longest heuristic freshness lifetime; nil (no cap, as RFC 9111 sets none) by default.
    public var maximumHeuristicLifetime: Duration?
    /// The key `Vary`-selected request values are fingerprinted under: this process's by default;
    /// ``HTTPCache`` sets its store's, so responses it stored match again in a later process.
    var fingerprintKey: FingerprintKey = .process

    /// An evaluator with the given override and heuristic settings.
    public init(
        override: FreshnessOverride = .none, heuristicFraction: Double = 0.1,
        maximumHeuristicLifetime: Duration? = nil
    ) {
        self.override = override
        self.heuristicFraction = heuristicFraction
        self.maximumHeuristicLifetime = maximumHeuristicLifetime
    }

    /// Whether the override applies to a response with `status`.
    func overrideApplies(to status: Int) -> Bool {
        override != .none && CacheableStatus.overridable.contains(status)
    }
}
