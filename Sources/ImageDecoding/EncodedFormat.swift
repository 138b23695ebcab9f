/// A compact format to store a processed image in.
public enum EncodedFormat: String, Sendable, Hashable {
    /// Lossy, for photos: about a third smaller than JPEG at the same quality, slower to decode.
    case webp
    /// Lossy, for photos: what processed images are stored as.
    case jpeg
    /// Lossless, for images with transparency or hard edges.
    case png

    /// The format for `image`: PNG when a pixel is not opaque (it keeps alpha exactly), else JPEG.
    ///
    /// A stored thumbnail is written once and decoded at every display from disk, so decoding
    /// speed wins over bytes: a JPEG thumbnail decodes in about half the time a WebP one takes, for
    /// about a third more bytes. JPEG is also what every platform writes
    /// (ImageIO does not write WebP), so a variant is the same format wherever it was made.
    public static func choice(for image: DecodedImage) -> EncodedFormat {
        image.isOpaque ? .jpeg : .png
    }
}

extension DecodedImage {
    /// Whether every pixel's alpha is 255.
    public var isOpaque: Bool {
        pixels.withUnsafeBytes { bytes in
            var offset = 3
            while offset < bytes.count {
                if bytes[offset] != 255 { return false }
                offset += 4
            }
            return true
        }
    }
}
