import CacheStorage
import Foundation

/// Freshness lifetime and age (RFC 9111 §4.2).
extension CachePolicyEvaluator {
    /// How long the response stays fresh after it was generated (RFC 9111 §4.2.1), with the override applied.
    ///
    /// From the first source present, for a private cache (`s-maxage` is ignored):
    /// 1. `max-age` (its first occurrence; an invalid value counts as zero);
    /// 2. `Expires` − `Date` (an invalid `Expires` is in the past, §5.3: zero);
    /// 3. a heuristic, for heuristically cacheable statuses or `public` responses only (§4.2.2):
    ///    ``heuristicFraction`` of `Date` − `Last-Modified`, capped at ``maximumHeuristicLifetime``;
    /// 4. otherwise zero.
    ///
    /// `.neverExpire` yields the largest representable duration.
    package func freshnessLifetime(of stored: StoredResponse) -> Duration {
        HTTPSeconds.duration(lifetimeSeconds(of: stored))
    }

    /// The response's current age (RFC 9111 §4.2.3): how long ago, by the best estimate, the origin
    /// generated it, counting time in upstream caches (`Age`), the network delay and time in this cache.
    package func currentAge(of stored: StoredResponse, now: Date) -> Duration {
        HTTPSeconds.duration(ageSeconds(of: stored, now: now))
    }

    /// Whether the response is fresh at `now`: its freshness lifetime exceeds its current age (§4.2).
    package func isFresh(_ stored: StoredResponse, now: Date) -> Bool {
        facts(of: stored).isFresh(at: now)
    }

    /// How long past its freshness lifetime the response is at `now`; zero while fresh.
    package func staleness(of stored: StoredResponse, now: Date) -> Duration {
        HTTPSeconds.duration(ageSeconds(of: stored, now: now) - lifetimeSeconds(of: stored))
    }

    /// The instant the response becomes stale, for the storage layer's expiry index; nil for never.
    ///
    /// Freshness is not permission: a `no-cache` response still needs validation before each use,
    /// so ask ``decision(for:stored:now:)`` before serving.
    package func expirationDate(of stored: StoredResponse) -> Date? {
        facts(of: stored).expirationDate
    }

    /// The response's lifetime and age on arrival, each parsed from its headers once; `directives`
    /// are its `Cache-Control`, when the caller has parsed them already.
    func facts(of stored: StoredResponse, directives: CacheControl? = nil) -> FreshnessFacts {
        FreshnessFacts(
            lifetime: lifetimeSeconds(of: stored, directives: directives),
            ageAtReceipt: ageSeconds(of: stored, now: stored.responseTime), responseTime: stored.responseTime)
    }

    /// The response head to send when serving the stored response at `now`: its status and stored
    /// fields, with `Age` set to the current age in whole seconds, as a cache must (RFC 9111 §5.1).
    package func servedHead(_ stored: StoredResponse, now: Date) -> HTTPResponseHead {
        Self.servedHead(stored, age: ageSeconds(of: stored, now: now))
    }

    /// The response head to send when serving the stored response at an age already known (a
    /// fast path's freshness facts): every served response is assembled here.
    static func servedHead(_ stored: StoredResponse, age: Double) -> HTTPResponseHead {
        var headers = stored.headers
        // Clamped like any delta-seconds (§1.2.2); the NaN check keeps absurd dates from trapping.
        let wholeAge = String(
            age.isNaN ? 0 : Int64(min(max(age.rounded(.down), 0), Double(HTTPSyntax.deltaSecondsLimit))))
        // Most stored responses have no `Age`: appending then gives what replacing would, for less.
        if headers.contains("Age") { headers["Age"] = wholeAge } else { headers.append("Age", wholeAge) }
        return HTTPResponseHead(status: stored.status, headers: headers)
    }

    // MARK: Seconds

    func lifetimeSeconds(of stored: StoredResponse, directives: CacheControl? = nil) -> Double {
        applyingOverride(
            to: headerLifetimeSeconds(of: stored, directives: directives ?? stored.cacheControl), status: stored.status)
    }

    /// A lifetime from the headers, with the override applied when it applies to `status`.
    func applyingOverride(to fromHeaders: Double, status: Int) -> Double {
        guard overrideApplies(to: status) else { return fromHeaders }
        switch override {
        case .none: return fromHeaders
        case .minimumTimeToLive(let minimum): return max(fromHeaders, minimum.seconds)
        case .fixedTimeToLive(let fixed): return fixed.seconds
        case .neverExpire: return HTTPSeconds.maximum
        }
    }

    package func ageSeconds(of stored: StoredResponse, now: Date) -> Double {
        let ageValue = Self.ageValue(stored.headers)
        let dateValue = Self.dateValue(stored)
        let apparentAge = max(0, stored.responseTime.timeIntervalSince(dateValue))
        // Clocks can step backwards between request and response; a negative delay or residence is noise.
        let responseDelay = max(0, stored.responseTime.timeIntervalSince(stored.requestTime))
        let correctedInitialAge = max(apparentAge, ageValue + responseDelay)
        let residentTime = max(0, now.timeIntervalSince(stored.responseTime))
        return correctedInitialAge + residentTime
    }

    private func headerLifetimeSeconds(of stored: StoredResponse, directives: CacheControl) -> Double {
        if let maxAge = directives.maxAge { return maxAge.seconds }
        if let expires = stored.headers.firstValue(for: "Expires") {
            guard let expiry = HTTPDate.parse(expires, now: stored.responseTime) else { return 0 }
            return max(0, expiry.timeIntervalSince(Self.dateValue(stored)))
        }
        // §4.2.2: heuristics only where the status allows them or the response is marked public.
        guard CacheableStatus.heuristicallyCacheable.contains(stored.status) || directives.isPublic,
            let lastModifiedValue = stored.headers.firstValue(for: "Last-Modified"),
            let lastModified = HTTPDate.parse(lastModifiedValue, now: stored.responseTime)
        else { return 0 }
        let heuristic = max(0, Self.dateValue(stored).timeIntervalSince(lastModified)) * max(0, heuristicFraction)
        guard let cap = maximumHeuristicLifetime else { return heuristic }
        return min(heuristic, cap.seconds)
    }

    /// `date_value`: the response's `Date`, or when it was received if `Date` is missing or invalid.
    private static func dateValue(_ stored: StoredResponse) -> Date {
        stored.headers.firstValue(for: "Date").flatMap { HTTPDate.parse($0, now: stored.responseTime) }
            ?? stored.responseTime
    }

    /// `age_value`: the first `Age` line's first member, or 0 when absent or not a number.
    ///
    /// Later lines and members are ignored (RFC 9111 §4.2.1 prefers the first occurrence). A parameter
    /// after the number (`7200;foo=bar`) is tolerated: honouring a large age can only make the cache
    /// revalidate sooner, never serve something staler.
    private static func ageValue(_ headers: HeaderFields) -> Double {
        guard let line = headers.firstValue(for: "Age"), let member = HTTPSyntax.listMembers(line).first else {
            return 0
        }
        let number = member.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return Double(HTTPSyntax.deltaSeconds(HTTPSyntax.trimmed(number)) ?? 0)
    }
}
