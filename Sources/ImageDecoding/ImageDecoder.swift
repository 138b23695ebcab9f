import Foundation
import ImageFormats

/// Turns an image's bytes into pixels, processed as asked: the seam between the pipeline and a
/// platform's decoding library (libvips on Linux, ImageIO on Apple platforms).
///
/// `decode` is synchronous and CPU-bound; `async` callers run it on the decoding queue, never on
/// Swift's cooperative pool. It refuses an image whose declared size is over `maxPixelCount`, or
/// whose pixels would take more bytes than the ``DecodeBudget`` allows, before decoding any pixels, and decodes only what the processing needs (a JPEG's thumbnail is shrunk while it loads, not after).
public protocol ImageDecoder: Sendable {
    /// The first frame of the image `data` holds, upright, in sRGB, processed as `processing` says.
    /// - Throws: ``ImageDecodingError``.
    func decode(
        _ data: Data, processing: ImageProcessing, maxPixelCount: Int
    ) throws(ImageDecodingError) -> DecodedImage

    /// ``decode(_:processing:maxPixelCount:)`` for bytes this app encoded itself (a thumbnail it
    /// stored): a decoder that isolates untrusted bytes may decode these in the caller's process.
    /// By default, the same as `decode`.
    func decodeTrusted(
        _ data: Data, processing: ImageProcessing, maxPixelCount: Int
    ) throws(ImageDecodingError) -> DecodedImage
}

extension ImageDecoder {
    public func decodeTrusted(
        _ data: Data, processing: ImageProcessing, maxPixelCount: Int
    ) throws(ImageDecodingError) -> DecodedImage {
        try decode(data, processing: processing, maxPixelCount: maxPixelCount)
    }
}

extension ImageDecoder where Self == PlatformImageDecoder {
    /// The platform's decoder: libvips on Linux, ImageIO on Apple platforms.
    public static var platform: PlatformImageDecoder { PlatformImageDecoder() }
}

extension ImageValidator {
    /// What `data` is, validated for decoding (`ImageValidator.validateForDecoding(_:)`) under
    /// `maxPixelCount`, and held to the ``DecodeBudget`` for `processing`: every decoder asks this
    /// first, so each refuses the same bytes.
    static func forDecoding(
        _ data: Data, processing: ImageProcessing, maxPixelCount: Int
    ) throws(ImageDecodingError) -> ImageInfo {
        let info: ImageInfo
        do {
            info = try ImageValidator(maxPixelCount: maxPixelCount).validateForDecoding(data)
        } catch {
            throw .invalidImage(error)
        }
        try DecodeBudget(maxPixelCount: maxPixelCount).check(info, processing: processing)
        return info
    }
}
