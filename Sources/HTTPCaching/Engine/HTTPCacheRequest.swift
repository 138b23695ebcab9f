import Foundation

/// A request for ``HTTPCache``: any method, headers, an optional body, and how to use the cache.
///
/// ```swift
/// let page = try await cache.response(for: HTTPCacheRequest(url: url))
/// var update = HTTPCacheRequest(url: url, method: "PUT", body: Data("new".utf8))
/// update.headers.append("Content-Type", "text/plain")
/// _ = try await cache.response(for: update)   // passes through, then invalidates `url`
/// ```
public struct HTTPCacheRequest: Sendable, Hashable {
    /// How a request uses the cache, after the `cache` modes of the Fetch standard.
    public enum Mode: Sendable, Hashable {
        /// RFC 9111 decides: reuse what is fresh, revalidate what is stale, store what may be stored.
        case `default`
        /// Bypass the cache: nothing is read or stored (unsafe methods still invalidate, RFC 9111 §4.4).
        case noStore
        /// Offline: answer from the cache only, fresh or stale (a stale answer says so), or fail with
        /// ``HTTPCacheError/notCached(_:)``. The network is never used.
        case onlyIfCached
    }

    /// The URL to request.
    public var url: URL
    /// The method, for example `GET`; case-sensitive (RFC 9110 §9.1). Only `GET` responses are
    /// stored, and `GET` and `HEAD` are answered from storage; other methods pass through.
    public var method: String
    /// The request's header fields, sent in this order.
    public var headers: HeaderFields
    /// The request body, for methods that carry one.
    public var body: Data?
    /// How the request uses the cache. ``Mode/default`` by default.
    public var mode: Mode
    /// The key the response is stored under; nil (the default) means
    /// ``HTTPCache/Configuration/cacheKey`` of ``url``. Either way, a request with credentials is
    /// kept apart from other users' under it (``HTTPCache/Configuration/credentialedResponses``).
    public var cacheKey: String?
    /// Replaces the configured evaluator's ``CachePolicyEvaluator/override`` for this request; nil
    /// (the default) keeps it.
    public var freshnessOverride: FreshnessOverride?

    /// Creates a request; `GET` without headers or body by default.
    public init(url: URL, method: String = "GET", headers: HeaderFields = [:], body: Data? = nil, mode: Mode = .default) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.mode = mode
    }

    /// Method and headers, as the evaluator reads them.
    package var head: HTTPRequestHead { HTTPRequestHead(method: method, headers: headers) }
}
