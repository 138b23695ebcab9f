import Foundation

/// The parts of an HTTP response that caching decisions read: the status code and the header fields.
public struct HTTPResponseHead: Sendable, Hashable {
    /// The status code, for example 200.
    public var status: Int
    /// The response's header fields.
    public var headers: HeaderFields

    /// A response head.
    public init(status: Int, headers: HeaderFields = [:]) {
        self.status = status
        self.headers = headers
    }

    /// The response's cache directives. `Pragma` is ignored in responses (RFC 9111 §5.4).
    package var cacheControl: CacheControl { CacheControl(headers: headers) }
}
