import Foundation

/// Which response header fields a cache keeps (RFC 9111 §3.1).
enum StorableFields {
    /// Hop-by-hop fields (RFC 9110 §7.6.1) and the proxy fields RFC 9111 §3.1 lists: they describe one
    /// connection, not the resource, so replaying them from storage would be wrong.
    private static let connectionSpecific: Set<String> = [
        "connection", "keep-alive", "te", "trailer", "transfer-encoding", "upgrade",
    ]

    /// `headers` without the fields a cache must not store:
    /// - `Connection` and every field it names, plus the fixed hop-by-hop set and every `Proxy-*` field;
    /// - the fields named by a qualified `no-cache="…"` (§5.2.2.4): never storing them is the simplest
    ///   way to never reuse them without validation;
    /// - the fields that hand out credentials or session state (``CredentialFields/response``:
    ///   `Set-Cookie` and its kin): a stored one would sit on disk for `cachectl` to print, and be
    ///   set again on every hit (RFC 9111 §3.1 leaves caches free to drop them; RFC 6265 §8 asks).
    static func filter(_ headers: HeaderFields) -> HeaderFields {
        var excluded = connectionSpecific.union(CredentialFields.response)
        for name in headers.listMembers(for: "Connection") { excluded.insert(HTTPSyntax.lowercased(name)) }
        if case .fields(let names) = CacheControl(headers: headers).noCache { excluded.formUnion(names) }
        var kept = headers
        kept.removeAll { field in
            let name = HTTPSyntax.lowercased(field.name)
            return excluded.contains(name) || name.hasPrefix("proxy-")
        }
        return kept
    }
}
