import ImageFormats

/// A decode of an image kept so that its other sizes are resampled from pixels instead of decoded
/// from its bytes again: the image at a half, a quarter or an eighth of its size, or whole when
/// its pixels are few (``wholeImageByteLimit``), upright, in sRGB.
///
/// A thumbnail of a size not made before costs a decode of the original, and decoding reads all of
/// its bytes even when it shrinks while it loads (a JPEG's entropy-coded data is read whole at
/// every scale). A base kept beside the bytes turns every later size it covers into a resample of
/// far fewer pixels. The base is the smallest power-of-two reduction that still holds every pixel
/// the target needs, so that it costs little to keep and a resample from it is always a downscale.
package struct DecodedBase: Sendable {
    /// 1, 2, 4 or 8: the base is the image at 1/`shrink` of its size.
    package let shrink: Int
    /// The pixels.
    package let image: DecodedImage
    /// Whether every pixel's alpha is 255, read once: each size resampled from the base needs it.
    package let isOpaque: Bool

    package init(shrink: Int, image: DecodedImage) {
        self.shrink = shrink
        self.image = image
        isOpaque = image.isOpaque
    }

    /// What keeping it costs: its pixels.
    package var cost: Int { image.cost }

    /// The shrinks a base is kept at, largest first.
    private static let shrinks = [8, 4, 2, 1]

    /// The most bytes of pixels a base of the whole image may take: a target of more than half
    /// of a larger image is decoded from its bytes each time, as it would be without a base.
    package static let wholeImageByteLimit = 4 << 20

    /// The shrink of the base that serves decoding `info` as `processing` asks: the largest whose
    /// base still covers the target (in either orientation, as ``DecodeBudget`` counts it). Nil
    /// when none does (the original, or more than half of an image whose pixels are over
    /// ``wholeImageByteLimit``) and for SVG, which is drawn at each size rather than resampled.
    package static func shrink(for info: ImageInfo, processing: ImageProcessing) -> Int? {
        guard processing != .original, info.format != .svg else { return nil }
        let scale = DecodeBudget.loadScale(for: info, processing: processing)
        guard let shrink = shrinks.first(where: { scale <= 1 / Double($0) }) else { return nil }
        guard shrink > 1 || info.pixelWidth * info.pixelHeight * 4 <= wholeImageByteLimit else { return nil }
        return shrink
    }

    /// The processing that decodes the base of `info` at `shrink`: a thumbnail whose longer side
    /// is the image's divided by `shrink`, rounded up, so that it covers what the shrink promises.
    package static func processing(for info: ImageInfo, shrink: Int) -> ImageProcessing {
        guard shrink > 1 else { return .original }
        let side = max(info.pixelWidth, info.pixelHeight)
        return .thumbnail(maxPixelSize: max(1, (side + shrink - 1) / shrink))
    }
}
