import Foundation

/// A proxy URL's path, parsed: `/<signature>/<processing>/<source>`.
///
/// - `signature`: the URL-safe Base64 (no padding) of HMAC-SHA256(key, `<processing>/<source>`),
///   or `unsigned` when the proxy runs with unsigned URLs allowed (see ``URLSigner``);
/// - `processing`: what to make of the image (see ``ProcessingSpec``);
/// - `source`: the source image's URL, in URL-safe Base64 without padding.
///
/// ```
/// /oKfS3…Q/fit:256x256/aHR0cHM6Ly9leGFtcGxlLmNvbS9jYXQuanBn
/// /unsigned/max:512,webp/aHR0cHM6Ly9leGFtcGxlLmNvbS9jYXQuanBn
/// ```
public struct ProxyRequestPath: Sendable, Hashable {
    /// The first segment, as given.
    public var signature: String
    /// The part the signature covers: `<processing>/<source>`, as given.
    public var signedPart: String
    /// What to make of the image.
    public var processing: ProcessingSpec
    /// The source image's URL.
    public var source: URL

    /// The word that stands in the signature's place in an unsigned URL.
    public static let unsignedMarker = "unsigned"

    /// Parses `path` (the request target's path, with its leading slash).
    /// - Throws: ``ProxyRequestError/malformedPath(_:)`` or ``ProxyRequestError/badProcessing(_:)``.
    public init(parsing path: Substring) throws(ProxyRequestError) {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard segments.count == 3, let signature = segments.first, !signature.isEmpty else {
            throw .malformedPath("expected /<signature>/<processing>/<base64url source URL>")
        }
        let processing = segments[segments.startIndex + 1]
        let encoded = segments[segments.startIndex + 2]
        guard let bytes = Base64URL.decode(encoded), let text = String(bytes: bytes, encoding: .utf8),
            let source = URL(string: text), let scheme = source.scheme?.lowercased(),
            scheme == "http" || scheme == "https", source.host?.isEmpty == false
        else {
            throw .malformedPath("the source is not an http or https URL in URL-safe Base64")
        }
        self.signature = String(signature)
        self.signedPart = "\(processing)/\(encoded)"
        self.processing = try ProcessingSpec(parsing: processing)
        self.source = source
    }

    /// The path for `source` under `processing`, signed by `signer` (or marked unsigned without one).
    public static func path(for source: URL, processing: ProcessingSpec, signer: URLSigner?) -> String {
        let signedPart = "\(processing.text)/\(Base64URL.encode(Data(source.absoluteString.utf8)))"
        return "/\(signer?.signature(for: signedPart) ?? unsignedMarker)/\(signedPart)"
    }
}
