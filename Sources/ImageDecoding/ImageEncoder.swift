import Foundation

/// Turns decoded pixels back into compact bytes: how a processed variant (a thumbnail) is stored.
public protocol ImageEncoder: Sendable {
    /// `image` encoded as `format`; `quality` (1–100) for the lossy formats.
    /// - Throws: ``ImageDecodingError``.
    func encode(_ image: DecodedImage, as format: EncodedFormat, quality: Int) throws(ImageDecodingError) -> Data
}
