import Foundation

/// The platform's decoder: ``VipsDecoder`` where libvips is linked (Linux), `ImageIODecoder` on
/// Apple platforms; elsewhere every decode fails with ``ImageDecodingError/decoderUnavailable(_:)``.
public struct PlatformImageDecoder: ImageDecoder {
    /// The platform's decoder.
    public init() {}

    public func decode(
        _ data: Data, processing: ImageProcessing, maxPixelCount: Int
    ) throws(ImageDecodingError) -> DecodedImage {
        #if canImport(CVips)
        try VipsDecoder().decode(data, processing: processing, maxPixelCount: maxPixelCount)
        #elseif canImport(ImageIO)
        try ImageIODecoder().decode(data, processing: processing, maxPixelCount: maxPixelCount)
        #else
        throw .decoderUnavailable("no image decoder is built for this platform")
        #endif
    }
}
