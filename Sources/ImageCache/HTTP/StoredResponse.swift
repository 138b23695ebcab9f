import Foundation

/// A response as the cache keeps it: status, storable header fields, when it was requested and
/// received, and the request header values its `Vary` field selects on.
///
/// Build one from a fresh network response with ``init(response:request:requestTime:responseTime:)``,
/// which applies RFC 9111 §3.1's storage rules. The memberwise initializer is for restoring a
/// response the storage layer kept (see ``encoded()``); it takes the values as they are.
public struct StoredResponse: Sendable, Hashable {
    /// The status code, for example 200.
    public var status: Int
    /// The stored header fields, without hop-by-hop fields.
    public var headers: HeaderFields
    /// When the request that produced this response was sent (`request_time`, RFC 9111 §4.2.3).
    public var requestTime: Date
    /// When the response was received (`response_time`, RFC 9111 §4.2.3).
    public var responseTime: Date
    /// The original request's fields named by the response's `Vary`, every line of each, for
    /// matching later requests (RFC 9111 §4.1).
    public var varyingRequestHeaders: HeaderFields

    /// A stored response from values kept earlier.
    public init(
        status: Int, headers: HeaderFields, requestTime: Date, responseTime: Date,
        varyingRequestHeaders: HeaderFields = [:]
    ) {
        self.status = status
        self.headers = headers
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.varyingRequestHeaders = varyingRequestHeaders
    }

    /// The response to keep for `response`, received for `request`.
    ///
    /// - Drops the fields a cache must not store (hop-by-hop, `Proxy-*`, fields named by a qualified
    ///   `no-cache`; RFC 9111 §3.1).
    /// - Adds `Date: <responseTime>` when the response has none, as RFC 9110 §6.6.1 requires of a
    ///   recipient that caches it; age calculations need it.
    /// - Records the request's values of each field `Vary` names.
    ///
    /// Check ``CachePolicyEvaluator/storability(of:for:)`` first: this initializer does not decide
    /// *whether* to store.
    public init(response: HTTPResponseHead, request: HTTPRequestHead, requestTime: Date, responseTime: Date) {
        var headers = StorableFields.filter(response.headers)
        if !headers.contains("Date") { headers.append("Date", HTTPDate.string(from: responseTime)) }
        var varying = HeaderFields()
        for name in Set(headers.listMembers(for: "Vary").map(HTTPSyntax.lowercased)).sorted() where name != "*" {
            for value in request.headers.values(for: name) { varying.append(name, value) }
        }
        self.init(
            status: response.status, headers: headers, requestTime: requestTime, responseTime: responseTime,
            varyingRequestHeaders: varying)
    }

    /// The stored response's cache directives.
    public var cacheControl: CacheControl { CacheControl(headers: headers) }

    /// The headers to send with a conditional request that validates this response (RFC 9111 §4.3.1):
    /// `If-None-Match` with its `ETag`, and `If-Modified-Since` with its `Last-Modified` when that is a
    /// valid date. Empty when the response has neither validator.
    ///
    /// Both are sent when both exist: a server that understands entity tags ignores the date
    /// (RFC 9110 §13.1.3), and one that does not still gets a validator it can use.
    public var conditionalRequestHeaders: HeaderFields {
        var conditional = HeaderFields()
        if let entityTag = headers.firstValue(for: "ETag"), !entityTag.isEmpty {
            conditional.append("If-None-Match", entityTag)
        }
        if let lastModified = headers.firstValue(for: "Last-Modified"), HTTPDate.parse(lastModified) != nil {
            conditional.append("If-Modified-Since", lastModified)
        }
        return conditional
    }
}
