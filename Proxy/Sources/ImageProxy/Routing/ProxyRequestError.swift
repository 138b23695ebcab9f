import Foundation

/// Why the proxy would not fetch what a URL asks for: each maps to a status and a sentence.
public enum ProxyRequestError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// The path is not `/<signature>/<processing>/<source>`.
    case malformedPath(String)
    /// The processing segment is not in the grammar.
    case badProcessing(String)
    /// The signature does not match (or the URL is unsigned and unsigned URLs are not allowed).
    case badSignature
    /// The source's host is not on the allowlist.
    case hostNotAllowed(String)
    /// The source's host resolves to an address the proxy does not fetch from.
    case addressNotAllowed(host: String, address: String)
    /// The source's host did not resolve.
    case unresolvableHost(String)

    /// The HTTP status the proxy answers with.
    public var status: Int {
        switch self {
        case .malformedPath, .badProcessing: 400
        case .badSignature, .hostNotAllowed, .addressNotAllowed: 403
        case .unresolvableHost: 502
        }
    }

    /// What went wrong and what to do about it.
    public var description: String {
        switch self {
        case let .malformedPath(detail): "Malformed proxy URL: \(detail)."
        case let .badProcessing(detail): "Bad processing: \(detail)."
        case .badSignature: "The URL's signature does not match; sign '<processing>/<source>' with the proxy's key."
        case let .hostNotAllowed(host): "The source host \(host) is not on the proxy's allowlist (--allow-host)."
        case let .addressNotAllowed(host, address):
            "The source host \(host) resolves to \(address), a loopback, private or link-local address the proxy does not fetch from (--allow-private-sources)."
        case let .unresolvableHost(host): "The source host \(host) did not resolve."
        }
    }

    /// The same sentence as ``description``.
    public var errorDescription: String? { description }
}
