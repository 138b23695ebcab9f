import Foundation

extension CachePolicyEvaluator {
    /// Whether a response may be stored, and if not, why.
    package enum Storability: Sendable, Hashable {
        /// The response may be stored.
        case storable
        /// The response must not (or need not) be stored.
        case notStorable(NotStorableReason)

        /// Whether the response may be stored.
        package var isStorable: Bool { self == .storable }
    }

    /// Why a response is not stored.
    package enum NotStorableReason: Sendable, Hashable, CustomStringConvertible {
        /// Only responses to `GET` are stored.
        case methodNotCacheable(String)
        /// A 1xx interim response, or a status outside 100...599 (RFC 9111 §3).
        case statusNotFinal(Int)
        /// A 206: this cache does not combine partial content (RFC 9111 §3.3).
        case partialContent
        /// A 304 updates a stored response; it is not stored itself (RFC 9111 §4.3.4).
        case notModified
        /// `must-understand` with a status whose caching rules this cache does not implement (§5.2.2.3).
        case statusNotUnderstood(Int)
        /// The response says `no-store` (§5.2.2.5).
        case responseNoStore
        /// The request says `no-store` (§5.2.1.5).
        case requestNoStore
        /// `Vary: *`: no later request can ever match it (§4.1), so storing it is wasted space.
        case varyAll
        /// No explicit freshness, no `public`/`private`, and a status that is not heuristically
        /// cacheable: nothing permits storing it (§3).
        case noCachePermission(status: Int)

        /// The reason as a sentence.
        package var description: String {
            switch self {
            case .methodNotCacheable(let method):
                return "Responses to \(method) are not stored; only GET responses are."
            case .statusNotFinal(let status):
                return "Status \(status) is not a final response status."
            case .partialContent:
                return "Partial content (206) is not stored; request the whole resource to cache it."
            case .notModified:
                return "A 304 updates the stored response instead of being stored."
            case .statusNotUnderstood(let status):
                return "The response requires understanding status \(status) (must-understand), which this cache does not implement."
            case .responseNoStore:
                return "The response says Cache-Control: no-store."
            case .requestNoStore:
                return "The request says Cache-Control: no-store."
            case .varyAll:
                return "The response says Vary: *, so no later request could reuse it."
            case .noCachePermission(let status):
                return "Status \(status) is cacheable only with explicit freshness (max-age, Expires) or public/private, and the response has none."
            }
        }
    }

    /// Whether `response`, received for `request`, may be stored (RFC 9111 §3), and if not, why.
    package func storability(of response: HTTPResponseHead, for request: HTTPRequestHead) -> Storability {
        if let reason = notStorableReason(response, request) { return .notStorable(reason) }
        return .storable
    }

    /// Whether `response`, received for `request`, may be stored (RFC 9111 §3).
    package func isStorable(_ response: HTTPResponseHead, for request: HTTPRequestHead) -> Bool {
        storability(of: response, for: request).isStorable
    }

    /// Whether a response to `request` with `status` invalidates what is stored for the target URI
    /// (RFC 9111 §4.4): a non-error status (2xx, 3xx) to an unsafe method, including unknown ones.
    ///
    /// The URIs in `Location` and `Content-Location` may be invalidated too when they share the
    /// target's origin; that needs URLs, so it is the caller's to do.
    package func invalidatesStoredResponses(request: HTTPRequestHead, status: Int) -> Bool {
        !Self.safeMethods.contains(request.method) && !CacheableStatus.isError(status)
    }

    /// RFC 9110 §9.2.1's safe methods; everything else, unknown methods included, is unsafe.
    private static let safeMethods: Set<String> = ["GET", "HEAD", "OPTIONS", "TRACE"]

    private func notStorableReason(_ response: HTTPResponseHead, _ request: HTTPRequestHead) -> NotStorableReason? {
        guard request.method == "GET" else { return .methodNotCacheable(request.method) }
        guard CacheableStatus.isFinal(response.status) else { return .statusNotFinal(response.status) }
        if response.status == 206 { return .partialContent }
        if response.status == 304 { return .notModified }
        if request.cacheControl.noStore { return .requestNoStore }
        let directives = response.cacheControl
        if directives.mustUnderstand {
            // §5.2.2.3: with a status the cache understands, must-understand overrides no-store.
            guard CacheableStatus.understood.contains(response.status) else {
                return .statusNotUnderstood(response.status)
            }
        } else if directives.noStore {
            return .responseNoStore
        }
        if response.headers.listMembers(for: "Vary").contains("*") { return .varyAll }
        let permitted =
            directives.maxAge != nil || response.headers.contains("Expires") || directives.isPublic
            || directives.isPrivate || CacheableStatus.heuristicallyCacheable.contains(response.status)
        return permitted ? nil : .noCachePermission(status: response.status)
    }
}
