import Foundation

/// Matching a stored response's `Vary` against a new request (RFC 9111 §4.1).
extension CachePolicyEvaluator {
    /// Whether `request` selects the same variant as the request that produced `stored`.
    ///
    /// Every field `Vary` names must match after normalisation, and a field absent from one request
    /// matches only if absent from the other. `Vary: *` (alone or among other names, on any line)
    /// never matches. See ``VaryNormalization`` for how values are compared.
    ///
    /// The request's values are compared by fingerprint with the stored
    /// ``StoredResponse/varyingRequestFingerprints``, under this evaluator's key; a response stored in
    /// clear by an earlier version (``StoredResponse/varyingRequestHeaders``) is compared in clear.
    package func matchesVary(_ stored: StoredResponse, request: HTTPRequestHead) -> Bool {
        let names = stored.headers.listMembers(for: "Vary").map(HTTPSyntax.lowercased)
        guard !names.contains("*") else { return false }
        return Set(names).allSatisfy { name in
            let requested = VaryNormalization.normalized(request.headers.values(for: name), field: name)
            if let fingerprint = stored.varyingRequestFingerprints.firstValue(for: name) {
                return requested.map { fingerprintKey.fingerprint($0, field: name) } == fingerprint
            }
            return VaryNormalization.normalized(stored.varyingRequestHeaders.values(for: name), field: name) == requested
        }
    }
}
