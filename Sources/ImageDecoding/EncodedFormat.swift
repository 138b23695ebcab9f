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
            // Alpha is every fourth byte from the fourth: eight bytes at a time hold two, and a
            // run of them is tested at once, so the loop has no branch per pixel.
            let alphas: UInt64 = 0xFF00_0000_FF00_0000
            let words = bytes.count / 8
            var word = 0
            while word < words {
                let run = min(words - word, 256)
                var all = alphas
                for index in word..<(word + run) { all &= UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)) }
                guard all == alphas else { return false }
                word += run
            }
            var offset = words * 8 + 3
            while offset < bytes.count {
                if bytes[offset] != 255 { return false }
                offset += 4
            }
            return true
        }
    }
}
