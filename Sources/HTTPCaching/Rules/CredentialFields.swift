/// The header fields that carry a user's credentials or session, which the cache never keeps in
/// clear: stored entries outlive sessions, and `cachectl` can show and export them.
enum CredentialFields {
    /// Request fields that identify the user: their values partition the cache and, when a `Vary`
    /// names them, are kept only as fingerprints (``FingerprintKey``).
    static let request: Set<String> = ["authorization", "cookie", "proxy-authorization"]

    /// Response fields that hand the client a credential or session state. They are never stored,
    /// so never replayed: a cookie set for one exchange must not be set again from storage.
    /// (`WWW-Authenticate` is a challenge, not a credential, and is kept.)
    static let response: Set<String> = ["set-cookie", "set-cookie2", "authentication-info", "proxy-authentication-info"]

    /// Whether `headers` carry any of ``request``.
    static func present(in headers: HeaderFields) -> Bool {
        headers.contains(where: { request.contains(HTTPSyntax.lowercased($0.name)) })
    }
}
