import Crypto
import Foundation

/// Signs and checks proxy URLs: HMAC-SHA256 over `<processing>/<source>` with a secret key, in
/// URL-safe Base64 without padding. Only URLs made with the key are served, so nobody can use
/// the proxy to fetch or resize what its owner did not link to.
public struct URLSigner: Sendable {
    private let key: SymmetricKey

    /// A signer with `key` (at least 32 bytes of secret is advised).
    public init(key: Data) {
        self.key = SymmetricKey(data: key)
    }

    /// The signature of `signedPart`.
    public func signature(for signedPart: String) -> String {
        Base64URL.encode(Data(HMAC<SHA256>.authenticationCode(for: Data(signedPart.utf8), using: key)))
    }

    /// Whether `signature` is `signedPart`'s, compared in constant time.
    public func isValid(_ signature: String, for signedPart: String) -> Bool {
        guard let code = Base64URL.decode(Substring(signature)) else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(code, authenticating: Data(signedPart.utf8), using: key)
    }
}
