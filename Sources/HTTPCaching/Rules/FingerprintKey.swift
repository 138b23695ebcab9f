import Foundation

/// The secret under which the cache fingerprints request field values it must compare later but
/// must not keep: the values a `Vary` names (an `Authorization`, a `Cookie`), and the credentials
/// that partition the cache (``HTTPCache/Configuration/credentialedResponses``).
///
/// A fingerprint is HMAC-SHA256 over the field's name and its normalised value, so equal values
/// still match and nothing stored reveals them: without the key, even a short cookie cannot be
/// guessed from its fingerprint offline. The key must outlive the process for stored responses to
/// match again; ``HTTPCache`` keeps one beside its store (see `FingerprintKeyFile`).
package struct FingerprintKey: Sendable, Hashable {
    static let byteCount = 32

    let bytes: [UInt8]

    /// This process's key, for responses that never reach a store (and for a store whose key
    /// cannot be read or written: its entries then match only within this process).
    static let process = FingerprintKey.random()

    /// A new key from the system's cryptographically secure generator.
    static func random() -> FingerprintKey {
        var generator = SystemRandomNumberGenerator()
        return FingerprintKey(bytes: (0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// The fingerprint of `value` (already normalised, see ``VaryNormalization``) of field `name`,
    /// as 64 lowercase hex digits. The name is included so equal values of two fields differ.
    func fingerprint(_ value: String, field name: String) -> String {
        let message = Array(HTTPSyntax.lowercased(name).utf8) + [0] + Array(value.utf8)
        return LowercaseHex.string(HMACSHA256.authenticationCode(message, key: bytes))
    }
}
