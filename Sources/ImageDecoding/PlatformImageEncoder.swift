import Foundation

/// The platform's encoder: ``VipsEncoder`` where libvips is linked (Linux), `ImageIOEncoder` on
/// Apple platforms; elsewhere every encode fails with ``ImageDecodingError/decoderUnavailable(_:)``.
public struct PlatformImageEncoder: ImageEncoder {
    /// The platform's encoder.
    public init() {}

    public func encode(_ image: DecodedImage, as format: EncodedFormat, quality: Int) throws(ImageDecodingError) -> Data {
        #if canImport(CVips)
        try VipsEncoder().encode(image, as: format, quality: quality)
        #elseif canImport(ImageIO)
        try ImageIOEncoder().encode(image, as: format, quality: quality)
        #else
        throw .decoderUnavailable("no image encoder is built for this platform")
        #endif
    }
}
