import CacheStorage
import Foundation

/// Whether and how a stored response answers a request (RFC 9111 §4).
extension CachePolicyEvaluator {
    /// What the cache should do with a request.
    package enum Decision: Sendable, Hashable {
        /// Serve the stored response (with ``CachePolicyEvaluator/servedHead(_:now:)``).
        case useStored
        /// Serve the stale stored response now and revalidate it in the background with these
        /// conditional headers (`stale-while-revalidate`, RFC 5861 §3); without validators they are
        /// empty and the background request is a plain fetch.
        case useStoredAndRevalidateInBackground(conditionalHeaders: HeaderFields)
        /// Send the request with these conditional headers added; a 304 means
        /// ``StoredResponse/updating(with:requestTime:responseTime:)`` and serving the result.
        case revalidate(conditionalHeaders: HeaderFields)
        /// Send the request unchanged; the stored response, if any, cannot help.
        case fetch(FetchReason)
        /// The request says `only-if-cached` and nothing stored satisfies it: answer 504 (§5.2.1.7).
        case unavailable
    }

    /// Why the stored response cannot be used or validated.
    package enum FetchReason: Sendable, Hashable {
        /// Nothing is stored for the request.
        case noStoredResponse
        /// The request's method is not answered from the cache (only `GET` and `HEAD` are).
        case methodNotCacheable
        /// The stored response was selected by other request header values (`Vary`, §4.1).
        case varyMismatch
        /// The stored response needs validation but has neither `ETag` nor `Last-Modified`.
        case noValidator
    }

    /// What to do with `request` given what is stored for its URI, at `now`.
    ///
    /// The order of checks, each with its rule:
    /// 1. only `GET`/`HEAD` reuse stored responses, and only when `Vary` matches (§4, §4.1);
    /// 2. `no-cache` in the request (or `Pragma: no-cache` without `Cache-Control`, §5.4), or an
    ///    unqualified `no-cache` in the response without an override, means validate (§5.2.1.4, §5.2.2.4);
    /// 3. a fresh response is used if it also satisfies the request's `max-age` and `min-fresh`
    ///    (§5.2.1.1, §5.2.1.3); `immutable` (RFC 8246) exempts it from `max-age`, the reload signal;
    /// 4. a stale one is used within the request's `max-stale` (§5.2.1.2), or served while revalidating
    ///    within `stale-while-revalidate` (RFC 5861) — never with `must-revalidate` (§5.2.2.2);
    /// 5. otherwise it is validated, or fetched when it has no validator; `only-if-cached` turns
    ///    both into ``Decision/unavailable``.
    package func decision(for request: HTTPRequestHead, stored: StoredResponse?, now: Date) -> Decision {
        let requestDirectives = request.cacheControl
        guard request.method == "GET" || request.method == "HEAD" else { return .fetch(.methodNotCacheable) }
        guard let stored else { return requestDirectives.onlyIfCached ? .unavailable : .fetch(.noStoredResponse) }
        guard matchesVary(stored, request: request) else {
            return requestDirectives.onlyIfCached ? .unavailable : .fetch(.varyMismatch)
        }
        let responseDirectives = stored.cacheControl
        let mustValidate =
            requestDirectives.noCache != nil
            || (responseDirectives.noCache == .all && !overrideApplies(to: stored.status))
        if !mustValidate, let reuse = reuseWithoutValidation(stored, requestDirectives, responseDirectives, now: now) {
            return reuse
        }
        if requestDirectives.onlyIfCached { return .unavailable }
        let conditional = stored.conditionalRequestHeaders
        return conditional.isEmpty ? .fetch(.noValidator) : .revalidate(conditionalHeaders: conditional)
    }

    /// How to reuse the stored response without asking the origin first, or nil if it must be asked.
    private func reuseWithoutValidation(
        _ stored: StoredResponse, _ requestDirectives: CacheControl, _ responseDirectives: CacheControl, now: Date
    ) -> Decision? {
        let lifetime = lifetimeSeconds(of: stored)
        let age = ageSeconds(of: stored, now: now)
        if lifetime > age {
            let satisfied = satisfiesFreshnessRequirements(
                requestDirectives, lifetime: lifetime, age: age, immutable: responseDirectives.isImmutable)
            return satisfied ? .useStored : nil
        }
        guard !responseDirectives.mustRevalidate else { return nil }
        return staleDecision(stored, requestDirectives, responseDirectives, staleness: age - lifetime, age: age)
    }

    /// §5.2.1.1 and §5.2.1.3: the request's own limits on a fresh response.
    private func satisfiesFreshnessRequirements(
        _ directives: CacheControl, lifetime: Double, age: Double, immutable: Bool
    ) -> Bool {
        if !immutable, let maxAge = directives.maxAge, age > maxAge.seconds { return false }
        if let minFresh = directives.minFresh, lifetime - age < minFresh.seconds { return false }
        return true
    }

    /// The decision for a stale response that may be served stale, or nil to validate.
    private func staleDecision(
        _ stored: StoredResponse, _ requestDirectives: CacheControl, _ responseDirectives: CacheControl,
        staleness: Double, age: Double
    ) -> Decision? {
        // A request max-age still caps the age of anything served, stale or not.
        if let maxAge = requestDirectives.maxAge, age > maxAge.seconds { return nil }
        if let maxStale = requestDirectives.maxStale, Self.allows(maxStale, staleness: staleness) { return .useStored }
        // A client that set its own freshness limits asked for fresh content, not a background refresh.
        guard requestDirectives.maxAge == nil, requestDirectives.minFresh == nil,
            let window = responseDirectives.staleWhileRevalidate, staleness <= window.seconds
        else { return nil }
        // only-if-cached forbids contacting the origin, background or not; the stale response still qualifies.
        if requestDirectives.onlyIfCached { return .useStored }
        let conditional = stored.conditionalRequestHeaders
        return .useStoredAndRevalidateInBackground(conditionalHeaders: conditional)
    }

    static func allows(_ maxStale: CacheControl.MaxStale, staleness: Double) -> Bool {
        switch maxStale {
        case .unlimited: return true
        case .limit(let limit): return staleness <= limit.seconds
        }
    }
}
