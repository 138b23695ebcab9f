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
    /// The original request's fields named by the response's `Vary`, in clear: only in responses
    /// stored by an earlier version, which matched later requests on them (RFC 9111 §4.1). New
    /// responses keep ``varyingRequestFingerprints`` instead, and this is empty.
    public var varyingRequestHeaders: HeaderFields
    /// A fingerprint of each original request field the response's `Vary` names, one line per field
    /// present (an absent field has none): a keyed hash of its normalised value (see
    /// `VaryNormalization`), so a later request with the same value matches while the value,
    /// an `Authorization` or a `Cookie` among them, is never kept. The key is the cache's
    /// (`CachePolicyEvaluator.matchesVary(_:request:)` must use the same one).
    public var varyingRequestFingerprints: HeaderFields

    /// A stored response from values kept earlier.
    public init(
        status: Int, headers: HeaderFields, requestTime: Date, responseTime: Date,
        varyingRequestHeaders: HeaderFields = [:], varyingRequestFingerprints: HeaderFields = [:]
    ) {
        self.status = status
        self.headers = headers
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.varyingRequestHeaders = varyingRequestHeaders
        self.varyingRequestFingerprints = varyingRequestFingerprints
    }

    /// The response to keep for `response`, received for `request`.
    ///
    /// - Drops the fields a cache must not store (hop-by-hop, `Proxy-*`, fields named by a qualified
    ///   `no-cache`; RFC 9111 §3.1) and those that hand out credentials (`Set-Cookie`, `Set-Cookie2`,
    ///   `Authentication-Info`).
    /// - Adds `Date: <responseTime>` when the response has none, as RFC 9110 §6.6.1 requires of a
    ///   recipient that caches it; age calculations need it.
    /// - Records a fingerprint of the request's value of each field `Vary` names, under this
    ///   process's key: it matches a later request of this process (through a default
    ///   ``CachePolicyEvaluator``); ``HTTPCache`` uses its store's key, which outlives the process.
    ///
    /// Check `CachePolicyEvaluator.storability(of:for:)` first: this initializer does not decide
    /// *whether* to store.
    public init(response: HTTPResponseHead, request: HTTPRequestHead, requestTime: Date, responseTime: Date) {
        self.init(
            response: response, request: request, requestTime: requestTime, responseTime: responseTime,
            fingerprintKey: .process)
    }

    /// ``init(response:request:requestTime:responseTime:)`` with the `Vary` fingerprints under `fingerprintKey`.
    package init(
        response: HTTPResponseHead, request: HTTPRequestHead, requestTime: Date, responseTime: Date,
        fingerprintKey: FingerprintKey
    ) {
        var headers = StorableFields.filter(response.headers)
        if !headers.contains("Date") { headers.append("Date", HTTPDate.string(from: responseTime)) }
        var fingerprints = HeaderFields()
        for name in Set(headers.listMembers(for: "Vary").map(HTTPSyntax.lowercased)).sorted() where name != "*" {
            guard let value = VaryNormalization.normalized(request.headers.values(for: name), field: name) else { continue }
            fingerprints.append(name, fingerprintKey.fingerprint(value, field: name))
        }
        self.init(
            status: response.status, headers: headers, requestTime: requestTime, responseTime: responseTime,
            varyingRequestFingerprints: fingerprints)
    }

    /// This response as it may be shown or exported: without the request values in clear that an
    /// earlier version kept for a `Vary` naming a credential field (`Authorization`, `Cookie`).
    /// (Credential-bearing response fields are already gone: they are never stored, and dropped
    /// when an earlier version's response is read.)
    public var withoutCredentials: StoredResponse {
        var copy = self
        copy.varyingRequestHeaders.removeAll { CredentialFields.request.contains(HTTPSyntax.lowercased($0.name)) }
        return copy
    }

    /// The stored response's cache directives.
    package var cacheControl: CacheControl { CacheControl(headers: headers) }

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
