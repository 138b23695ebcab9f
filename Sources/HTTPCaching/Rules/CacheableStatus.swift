import Foundation

/// Which status codes the cache stores and reasons about.
package enum CacheableStatus {
    /// Status codes "heuristically cacheable" by RFC 9110 §15.1: without explicit freshness, a cache
    /// may still store them and compute a freshness lifetime from `Last-Modified`.
    package static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]

    /// Status codes whose caching rules this cache implements, for `must-understand` (RFC 9111 §5.2.2.3):
    /// a response carrying it is stored only with one of these. 206 is absent because this cache
    /// does not combine partial content.
    package static let understood: Set<Int> = [
        200, 203, 204, 300, 301, 302, 303, 307, 308, 400, 403, 404, 405, 410, 414, 500, 501, 502, 503, 504,
    ]

    /// Statuses a ``FreshnessOverride`` may lengthen: the heuristically cacheable ones that are not
    /// errors, so that a caller's "keep for a week" never pins a 404 or a 501 for a week.
    package static let overridable: Set<Int> = heuristicallyCacheable.filter { $0 < 400 }

    /// Whether `status` is a final status (200...599); 1xx responses are interim and never stored.
    package static func isFinal(_ status: Int) -> Bool {
        (200...599).contains(status)
    }

    /// Whether `status` is an error for RFC 9111 §4.4 invalidation (anything outside 2xx and 3xx).
    package static func isError(_ status: Int) -> Bool {
        !(200...399).contains(status)
    }
}
