import CacheStorage
import Foundation

/// Serving stale responses when the origin cannot be asked (RFC 9111 §4.2.4, RFC 5861).
extension CachePolicyEvaluator {
    /// Why the cache is considering a stale response.
    package enum StaleContext: Sendable, Hashable {
        /// An ordinary request: staleness must be allowed by `max-stale` or `stale-while-revalidate`.
        case normal
        /// The origin answered with this 5xx status (RFC 5861 §4: 500, 502, 503, 504 are errors).
        case originError(status: Int)
        /// The origin could not be reached: no connection, a reset, a timeout.
        case originUnreachable
    }

    /// Whether the stored response may be served at `now` although it may be stale.
    ///
    /// Fresh responses are always usable. A stale one never is when the response says
    /// `must-revalidate` or (unqualified) `no-cache`, or the request says `no-cache`: these demand a
    /// successful validation (§4.2.4, §5.2.2.2). Otherwise it is usable when:
    /// - the request's `max-stale` covers the staleness (§5.2.1.2), in any context;
    /// - `.normal`: `stale-while-revalidate` covers it (the caller revalidates in the background);
    /// - `.originError`: the response's or request's `stale-if-error` covers it (RFC 5861 §4);
    /// - `.originUnreachable`: always — a disconnected cache may serve stale responses (§4.2.4) —
    ///   unless a `stale-if-error` window is given and exceeded, which the origin meant as a limit.
    ///
    /// `Vary` is not checked here: pass only a response that ``matchesVary(_:request:)`` the request.
    package func canServeStale(
        _ stored: StoredResponse, now: Date, request: HTTPRequestHead, context: StaleContext = .normal
    ) -> Bool {
        let lifetime = lifetimeSeconds(of: stored)
        let age = ageSeconds(of: stored, now: now)
        if lifetime > age { return true }
        let responseDirectives = stored.cacheControl
        let requestDirectives = request.cacheControl
        let overridden = overrideApplies(to: stored.status)
        guard !responseDirectives.mustRevalidate, overridden || responseDirectives.noCache != .all,
            requestDirectives.noCache == nil
        else { return false }
        let staleness = age - lifetime
        if let maxStale = requestDirectives.maxStale, Self.allows(maxStale, staleness: staleness) { return true }
        let errorWindow = [requestDirectives.staleIfError, responseDirectives.staleIfError].compactMap { $0 }.max()
        switch context {
        case .normal:
            guard let window = responseDirectives.staleWhileRevalidate else { return false }
            return staleness <= window.seconds
        case .originError(let status):
            guard [500, 502, 503, 504].contains(status), let errorWindow else { return false }
            return staleness <= errorWindow.seconds
        case .originUnreachable:
            guard let errorWindow else { return true }
            return staleness <= errorWindow.seconds
        }
    }
}
