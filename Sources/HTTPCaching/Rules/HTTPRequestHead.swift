import Foundation

/// The parts of an HTTP request that caching decisions read: the method and the header fields.
public struct HTTPRequestHead: Sendable, Hashable {
    /// The request method, for example `GET`. Methods are case-sensitive (RFC 9110 §9.1).
    public var method: String
    /// The request's header fields.
    public var headers: HeaderFields

    /// A request head; `GET` by default.
    public init(method: String = "GET", headers: HeaderFields = [:]) {
        self.method = method
        self.headers = headers
    }

    /// The request's cache directives, with `Pragma: no-cache` read as `Cache-Control: no-cache`
    /// when the request has no `Cache-Control` field (RFC 9111 §5.4).
    package var cacheControl: CacheControl {
        if headers.contains("Cache-Control") { return CacheControl(headers: headers) }
        let pragmaNoCache = headers.listMembers(for: "Pragma").contains { HTTPSyntax.lowercased($0) == "no-cache" }
        return CacheControl(directives: pragmaNoCache ? [.init(name: "no-cache")] : [])
    }
}
