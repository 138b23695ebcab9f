/// A compact format to store a processed image in.
public enum EncodedFormat: String, Sendable, Hashable {
    /// Lossy, for photos: about a third smaller than JPEG at the same quality.
    case webp
    /// Lossy, for photos, where WebP cannot be read.
    case jpeg
    /// Lossless, for images with transparency or hard edges.
    case png

    /// The format for `image`: PNG when a pixel is not opaque (it keeps alpha exactly), else WebP
    /// (JPEG on Apple platforms, whose ImageIO does not write WebP).
    public static func choice(for image: DecodedImage) -> EncodedFormat {
        guard image.isOpaque else { return .png }
        #if canImport(CVips)
        return .webp
        #else
        return .jpeg
        #endif
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
