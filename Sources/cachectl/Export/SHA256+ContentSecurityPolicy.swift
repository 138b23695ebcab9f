import Foundation
import HTTPCaching

extension SHA256 {
    /// A CSP hash source for `text` (its UTF-8 bytes): `'sha256-…'`.
    static func contentSecurityPolicySource(_ text: String) -> String {
        "'sha256-\(Data(digest(text.utf8)).base64EncodedString())'"
    }
}
