import Foundation

/// Typed access to the directives RFC 9111 §5.2 and RFC 5861 / RFC 8246 define.
///
/// Durations follow one rule: absent → nil; present with a valid delta-seconds → that many seconds
/// (clamped to 2^31, RFC 9111 §1.2.2); present with anything else (`-1`, `1.5`, `60a`, empty) → zero.
/// Zero is the most restrictive reading of a freshness directive, as RFC 9111 §4.2.1 encourages
/// for invalid freshness information: a response with `max-age=1.5` is stale, not fresh for ever.
extension CacheControl {
    /// How a response's `no-cache` directive applies.
    package enum NoCache: Sendable, Hashable {
        /// Unqualified `no-cache`: the whole response must be validated before each reuse (§5.2.2.4).
        case all
        /// Qualified `no-cache="a, b"`: only these fields (lowercased) need validation;
        /// the cache drops them when storing, so the rest can be reused.
        case fields([String])
    }

    /// How far past its freshness a client accepts a response (`max-stale`, RFC 9111 §5.2.1.2).
    package enum MaxStale: Sendable, Hashable {
        /// `max-stale` without a value: any staleness.
        case unlimited
        /// `max-stale=N`: at most this much.
        case limit(Duration)
    }

    // MARK: Response and request

    /// `max-age`: the freshness lifetime (response) or the oldest acceptable age (request).
    package var maxAge: Duration? { duration("max-age") }

    /// `no-store`: do not store any part of the request or response (§5.2.1.5, §5.2.2.5).
    package var noStore: Bool { contains("no-store") }

    /// `no-transform` (§5.2.1.6, §5.2.2.6).
    package var noTransform: Bool { contains("no-transform") }

    /// `stale-if-error` (RFC 5861 §4): how long past freshness the response may be used when the origin fails.
    package var staleIfError: Duration? { duration("stale-if-error") }

    // MARK: Response

    /// `s-maxage` (§5.2.2.10). Parsed for completeness; a private cache ignores it.
    package var sharedMaxAge: Duration? { duration("s-maxage") }

    /// `no-cache` in a response (§5.2.2.4): unqualified, or qualified with field names.
    ///
    /// Any unqualified occurrence wins over qualified ones, and a qualified list that names no
    /// valid field is treated as unqualified: both are the more restrictive reading.
    package var noCache: NoCache? {
        let occurrences = directives.filter { $0.name == "no-cache" }
        guard !occurrences.isEmpty else { return nil }
        var fields: [String] = []
        for occurrence in occurrences {
            guard let argument = occurrence.argument else { return .all }
            fields += HTTPSyntax.listMembers(argument).filter(HTTPSyntax.isToken).map(HTTPSyntax.lowercased)
        }
        return fields.isEmpty ? .all : .fields(fields)
    }

    /// `must-revalidate` (§5.2.2.2): once stale, never reuse without successful validation.
    package var mustRevalidate: Bool { contains("must-revalidate") }

    /// `proxy-revalidate` (§5.2.2.8): `must-revalidate` for shared caches only; ignored here.
    package var proxyRevalidate: Bool { contains("proxy-revalidate") }

    /// `must-understand` (§5.2.2.3): store only if the cache understands the status code.
    package var mustUnderstand: Bool { contains("must-understand") }

    /// `public` (§5.2.2.9): cacheable even where it otherwise would not be.
    package var isPublic: Bool { contains("public") }

    /// `private` (§5.2.2.7): only a private cache may store it — which this one is.
    package var isPrivate: Bool { contains("private") }

    /// `immutable` (RFC 8246): while fresh, the response will not change, so reloads need not revalidate.
    package var isImmutable: Bool { contains("immutable") }

    /// `stale-while-revalidate` (RFC 5861 §3): how long past freshness the response may be served
    /// while a revalidation runs in the background.
    package var staleWhileRevalidate: Duration? { duration("stale-while-revalidate") }

    // MARK: Request

    /// `max-stale` in a request (§5.2.1.2). An invalid value allows no staleness.
    package var maxStale: MaxStale? {
        guard let directive = first("max-stale") else { return nil }
        guard let argument = directive.argument else { return .unlimited }
        return .limit(Self.duration(argument))
    }

    /// `min-fresh` in a request (§5.2.1.3): the response must stay fresh at least this long.
    package var minFresh: Duration? { duration("min-fresh") }

    /// `only-if-cached` in a request (§5.2.1.7): answer from the cache or with 504.
    package var onlyIfCached: Bool { contains("only-if-cached") }

    // MARK: Values

    private func duration(_ name: String) -> Duration? {
        guard let directive = first(name) else { return nil }
        return Self.duration(directive.argument ?? "")
    }

    private static func duration(_ argument: String) -> Duration {
        .seconds(HTTPSyntax.deltaSeconds(argument) ?? 0)
    }
}
