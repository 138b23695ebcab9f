import Foundation

/// What a response's head tells the next cache down the line: a server that passes a cached
/// response on (an image proxy) states the freshness it has left, so that a CDN or a browser
/// keeps it no longer than its origin allowed.
extension CachePolicyEvaluator {
    /// How much longer a cache receiving `head` at `now` may treat it as fresh (RFC 9111 §4.2):
    /// its freshness lifetime minus its current age (`Age`, or `now` − `Date` if larger), never
    /// below zero. This evaluator's override applies, as it does to what the cache stores.
    public func remainingFreshness(of head: HTTPResponseHead, now: Date = Date()) -> Duration {
        let stored = StoredResponse(response: head, request: HTTPRequestHead(), requestTime: now, responseTime: now)
        return HTTPSeconds.duration(max(0, lifetimeSeconds(of: stored) - ageSeconds(of: stored, now: now)))
    }

    /// Whether `head`'s `Cache-Control` carries the directive `name` (`no-store`, `private`, …),
    /// as the rule book parses it.
    public static func hasDirective(_ name: String, in head: HTTPResponseHead) -> Bool {
        CacheControl(headers: head.headers).contains(name)
    }
}
