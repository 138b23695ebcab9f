import ImageFormats

/// The bytes of pixels a decoder may build for one image, worked out from what the validator read
/// in its header before any pixel is decoded: one owner, which every decoder asks through the same
/// validation step, so each refuses the same images.
///
/// The pixel limit bounds pixels; the work and memory of decoding grow with their bytes. A small
/// 16-bit RGBA PNG at the 100-megapixel limit makes a decoder build 800 MB of samples, even for a
/// small preview. So the budget counts the image as the decoder loads it: at the depth the file
/// declares (at least the 4 bytes of the RGBA result), at the scale it loads (JPEG shrinks by 2,
/// 4 or 8 while loading a thumbnail, WebP and SVG load at the size asked for, PNG, GIF, TIFF, BMP,
/// ICO and HEIF load whole), plus the `data:` images an SVG embeds, which load whole.
///
/// ```swift
/// let budget = DecodeBudget()                                   // 512 MiB, 256 MiB for thumbnails
/// let bytes = budget.bytesBuilt(for: info, processing: .thumbnail(maxPixelSize: 256))
/// ```
public struct DecodeBudget: Sendable, Hashable {
    /// The most bytes decoding an image as ``ImageProcessing/original`` may build: 512 MiB by
    /// default (an 8-bit RGBA image at the 100-megapixel limit, 400 MB, fits; a 16-bit RGBA one of
    /// more than 67 megapixels does not).
    public var originalByteLimit: Int
    /// The most bytes decoding an image for a thumbnail or a resized image may build: 256 MiB by
    /// default, so a small picture never costs what the largest original does. A target the image
    /// already fits is decoded as the original is, and held to ``originalByteLimit``.
    public var thumbnailByteLimit: Int

    /// A budget with the default limits, or the ones given.
    public init(originalByteLimit: Int = 512 << 20, thumbnailByteLimit: Int = 256 << 20) {
        self.originalByteLimit = originalByteLimit
        self.thumbnailByteLimit = thumbnailByteLimit
    }

    /// The budget decoders use under the pixel limit `maxPixelCount`: the defaults, with the
    /// original's limit raised to 4 bytes per pixel of a pixel limit above 128 megapixels, so that
    /// raising the pixel limit keeps 8-bit originals at it decodable.
    public init(maxPixelCount: Int) {
        self.init()
        let (rgbaBytes, overflow) = maxPixelCount.multipliedReportingOverflow(by: 4)
        originalByteLimit = max(originalByteLimit, overflow ? .max : rgbaBytes)
    }

    /// The limit that applies to decoding `info` as `processing` asks.
    public func byteLimit(for info: ImageInfo, processing: ImageProcessing) -> Int {
        Self.loadScale(for: info, processing: processing) < 1 ? thumbnailByteLimit : originalByteLimit
    }

    /// The bytes of pixels decoding `info` as `processing` asks builds: the image as loaded, at
    /// the depth its file declares, and the images an SVG embeds.
    public func bytesBuilt(for info: ImageInfo, processing: ImageProcessing) -> Int {
        let scale = Self.loadScale(for: info, processing: processing)
        let loaded: Double
        switch info.format {
        case .jpeg:
            let shrink = Double(Self.jpegShrink(forScale: scale))
            loaded = (Double(info.pixelWidth) / shrink).rounded(.up) * (Double(info.pixelHeight) / shrink).rounded(.up)
        case .webp, .svg:
            loaded = (Double(info.pixelWidth) * scale).rounded(.up) * (Double(info.pixelHeight) * scale).rounded(.up)
        default:
            loaded = Double(info.pixelWidth) * Double(info.pixelHeight)
        }
        let bytesPerPixel = Double(max(info.bytesPerPixel ?? 4, 4))
        let bytes = loaded * bytesPerPixel + Double(info.embeddedPixelCount) * 4
        return bytes >= Double(Int.max) ? .max : Int(bytes)
    }

    /// Refuses to decode `info` as `processing` asks when that builds more than its limit.
    ///
    /// - Throws: ``ImageDecodingError/overBudget(bytes:limit:processing:)``.
    public func check(_ info: ImageInfo, processing: ImageProcessing) throws(ImageDecodingError) {
        let bytes = bytesBuilt(for: info, processing: processing)
        let limit = byteLimit(for: info, processing: processing)
        guard bytes <= limit else { throw .overBudget(bytes: bytes, limit: limit, processing: processing) }
    }

    /// The scale (at most 1) the target asks of the image: a box it fits inside, or, cropping, one it
    /// covers. The stored size is before EXIF rotation, so the scale of either orientation is
    /// taken, whichever keeps more pixels.
    static func loadScale(for info: ImageInfo, processing: ImageProcessing) -> Double {
        let (width, height) = (Double(max(info.pixelWidth, 1)), Double(max(info.pixelHeight, 1)))
        let scale: (Double, Double) -> Double
        switch processing {
        case .original:
            return 1
        case let .thumbnail(maxPixelSize):
            let side = Double(max(maxPixelSize, 1))
            scale = { width, height in min(side / width, side / height) }
        case let .resized(targetWidth, targetHeight, mode):
            let (boxWidth, boxHeight) = (Double(max(targetWidth, 1)), Double(max(targetHeight, 1)))
            scale = mode == .fill
                ? { width, height in max(boxWidth / width, boxHeight / height) }
                : { width, height in min(boxWidth / width, boxHeight / height) }
        }
        return min(1, max(scale(width, height), scale(height, width)))
    }

    /// The factor libjpeg shrinks by while loading, as libvips picks it: the largest of 8, 4 and 2
    /// that leaves at least a factor of two to the final resize.
    static func jpegShrink(forScale scale: Double) -> Int {
        let factor = 1 / scale
        return factor >= 16 ? 8 : factor >= 8 ? 4 : factor >= 4 ? 2 : 1
    }
}
