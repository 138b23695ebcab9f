import Foundation

extension HTTPCache {
    /// What the cache does with a response to a request that carries credentials (`Authorization`,
    /// `Cookie` or `Proxy-Authorization`): set ``Configuration/credentialedResponses``.
    ///
    /// An origin that personalises a response should say `Vary: Authorization` (or `Cookie`), and
    /// many do not; a private cache shared by several accounts in one app, or by a signed-in and a
    /// signed-out view, would then hand one user's response to another. Partitioning makes that
    /// impossible whatever the origin says, at the cost of one stored copy per user.
    ///
    /// ```swift
    /// var configuration = HTTPCache.Configuration(store: store)
    /// configuration.credentialedResponses = .shared   // a token every user shares: one copy for all
    /// ```
    public enum CredentialedResponses: Sendable, Hashable {
        /// Kept for the same credentials only (the default): stored under the request's key plus a
        /// fingerprint of its credentials (HMAC-SHA256 under the store's key, never the values), so
        /// the same user gets hits, while another user, or a request without credentials, misses
        /// and goes to the origin.
        case partitionedByCredential
        /// Kept under the request's key alone, like any response: a request with other credentials,
        /// or none, may be answered with it where `Vary` allows. Choose it only when credentials do
        /// not change the response, such as a CDN token every user shares.
        case shared
        /// Neither stored nor answered from storage: such requests go to the origin as
        /// ``HTTPCacheRequest/Mode/noStore`` does.
        case notStored
    }

    /// The key a request with `headers` is kept under, given `key` for its URL: `key` itself for a
    /// request without credentials or under ``CredentialedResponses/shared``, else `key` followed by
    /// a space (which no URL holds) and the credentials' fingerprint.
    ///
    /// The pipeline keys its memory tier the same way, so its images are partitioned as the disk is.
    func storageKey(_ key: String, headers: HeaderFields) -> String {
        guard configuration.credentialedResponses != .shared, CredentialFields.present(in: headers) else { return key }
        let credentials = CredentialFields.request.sorted().compactMap { name in
            VaryNormalization.normalized(headers.values(for: name), field: name).map { "\(name): \($0)" }
        }
        let fingerprint = fingerprintKey.fingerprint(credentials.joined(separator: "\n"), field: "credentials")
        // 128 bits tell users apart as surely as 256, in half the key.
        return key + " credential:" + fingerprint.prefix(32)
    }
}
