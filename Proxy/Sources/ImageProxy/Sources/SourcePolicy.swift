import Foundation
import NIOPosix

/// Which sources the proxy fetches: hosts on the allowlist (all, when it is empty), and only
/// when every address the host resolves to is public, unless internal addresses are allowed.
///
/// Every address is checked, not the first: a name with one public and one private address
/// would otherwise let the fetch reach the private one. The check happens before each fetch;
/// the transport resolves the name again when it connects, so a name whose records change in
/// between (DNS rebinding) is not covered by this check alone: pair the proxy with a network
/// policy that keeps it off internal networks where that matters.
public struct SourcePolicy: Sendable {
    /// Hosts that may be fetched: exact names, or `*.example.com` for any subdomain of
    /// `example.com`. Empty (the default) allows every host.
    public var allowedHosts: [String]
    /// Whether loopback, private and link-local addresses may be fetched from. False by default.
    public var allowsInternalAddresses: Bool

    /// A policy; the defaults allow every public host.
    public init(allowedHosts: [String] = [], allowsInternalAddresses: Bool = false) {
        self.allowedHosts = allowedHosts.map { $0.lowercased() }
        self.allowsInternalAddresses = allowsInternalAddresses
    }

    /// Whether `host` is on the allowlist.
    public func allows(host: String) -> Bool {
        let host = host.lowercased()
        guard !allowedHosts.isEmpty else { return true }
        return allowedHosts.contains { pattern in
            if pattern.hasPrefix("*.") { return host.hasSuffix(pattern.dropFirst()) && host.count > pattern.count - 1 }
            return host == pattern
        }
    }

    /// Throws unless `source` may be fetched: its host allowed, and every address it resolves to
    /// allowed. Resolution runs on NIO's blocking-I/O thread pool, not on the cooperative pool.
    /// - Throws: ``ProxyRequestError``.
    public func check(_ source: URL) async throws(ProxyRequestError) {
        guard let host = source.host(percentEncoded: false), !host.isEmpty else { throw .malformedPath("the source has no host") }
        guard allows(host: host) else { throw .hostNotAllowed(host) }
        guard !allowsInternalAddresses else { return }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let addresses: [SourceAddress]
        do {
            addresses = try await NIOThreadPool.singleton.runIfActive { SourceAddress.resolve(bare) }
        } catch {
            throw .unresolvableHost(host)
        }
        guard !addresses.isEmpty else { throw .unresolvableHost(host) }
        if let refused = addresses.first(where: \.isInternal) {
            throw .addressNotAllowed(host: host, address: refused.description)
        }
    }
}
