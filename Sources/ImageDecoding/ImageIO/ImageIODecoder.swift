#if canImport(ImageIO) && canImport(CoreGraphics)
import CoreGraphics
import Foundation
import ImageFormats
import ImageIO

/// Decoding with ImageIO on Apple platforms: `CGImageSourceCreateThumbnailAtIndex` with a maximum
/// pixel size (which shrinks JPEG and HEIC while they load) and the EXIF transform applied, drawn
/// into sRGB.
///
/// Compiled only on Apple platforms; this project's CI (Linux) does not build it.
public struct ImageIODecoder: ImageDecoder {
    /// A decoder.
    public init() {}

    public func decode(
        _ data: Data, processing: ImageProcessing, maxPixelCount: Int
    ) throws(ImageDecodingError) -> DecodedImage {
        _ = try ImageValidator.forDecoding(data, processing: processing, maxPixelCount: maxPixelCount)
        let sourceOptions = [kCGImageSourceShouldCache: false] as CFDictionary
        guard let source = CGImageSourceCreateWithData(data as CFData, sourceOptions), CGImageSourceGetCount(source) > 0
        else { throw .unsupportedFormat("ImageIO does not read this data") }
        guard let properties = CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as? [CFString: Any],
            let width = properties[kCGImagePropertyPixelWidth] as? Int,
            let height = properties[kCGImagePropertyPixelHeight] as? Int, width > 0, height > 0
        else { throw .corrupt("ImageIO found no image size") }
        let orientation = properties[kCGImagePropertyOrientation] as? Int ?? 1
        let upright = orientation >= 5 ? (width: height, height: width) : (width: width, height: height)
        let plan = try Self.plan(processing, upright: upright)
        let options: [CFString: Any] = [
            kCGImageSourceCreateThumbnailFromImageAlways: true,
            kCGImageSourceCreateThumbnailWithTransform: true,
            kCGImageSourceThumbnailMaxPixelSize: plan.maxPixelSize,
            kCGImageSourceShouldCacheImmediately: true,
        ]
        guard let image = CGImageSourceCreateThumbnailAtIndex(source, 0, options as CFDictionary) else {
            throw .corrupt("ImageIO could not decode the image")
        }
        let output = (width: min(plan.output.width, image.width), height: min(plan.output.height, image.height))
        return try Self.draw(image, into: output, frameCount: CGImageSourceGetCount(source))
    }

    /// The thumbnail's longer side, and the size cut from it (the same, except when filling).
    private static func plan(
        _ processing: ImageProcessing, upright: (width: Int, height: Int)
    ) throws(ImageDecodingError) -> (maxPixelSize: Int, output: (width: Int, height: Int)) {
        let longer = max(upright.width, upright.height)
        switch processing {
        case .original:
            return (longer, upright)
        case let .thumbnail(maxPixelSize):
            guard maxPixelSize > 0 else { throw .invalidProcessing("a thumbnail's maximum pixel size must be positive") }
            let scale = min(1, Double(maxPixelSize) / Double(longer))
            return (min(maxPixelSize, longer), scaled(upright, by: scale))
        case let .resized(width, height, mode):
            guard width > 0, height > 0 else { throw .invalidProcessing("a size of \(width) × \(height) pixels") }
            let scales = (Double(width) / Double(upright.width), Double(height) / Double(upright.height))
            let scale = min(1, mode == .fit ? min(scales.0, scales.1) : max(scales.0, scales.1))
            let thumbnail = scaled(upright, by: scale)
            let output = mode == .fit ? thumbnail : (min(width, thumbnail.width), min(height, thumbnail.height))
            return (max(thumbnail.width, thumbnail.height), output)
        }
    }

    private static func scaled(_ size: (width: Int, height: Int), by scale: Double) -> (width: Int, height: Int) {
        (max(1, Int((Double(size.width) * scale).rounded())), max(1, Int((Double(size.height) * scale).rounded())))
    }

    /// `image` drawn centred into an sRGB, premultiplied BGRA bitmap of `size` (cropping what overflows).
    private static func draw(
        _ image: CGImage, into size: (width: Int, height: Int), frameCount: Int
    ) throws(ImageDecodingError) -> DecodedImage {
        guard let space = CGColorSpace(name: CGColorSpace.sRGB) else { throw .decoderUnavailable("no sRGB colour space") }
        let bytesPerRow = size.width * 4
        var pixels = Data(count: bytesPerRow * size.height)
        let drawn = pixels.withUnsafeMutableBytes { bytes -> Bool in
            guard let context = CGContext(
                data: bytes.baseAddress, width: size.width, height: size.height, bitsPerComponent: 8,
                bytesPerRow: bytesPerRow, space: space,
                bitmapInfo: CGImageAlphaInfo.premultipliedFirst.rawValue | CGBitmapInfo.byteOrder32Little.rawValue)
            else { return false }
            context.interpolationQuality = .high
            let origin = (x: (size.width - image.width) / 2, y: (size.height - image.height) / 2)
            context.draw(image, in: CGRect(x: origin.x, y: origin.y, width: image.width, height: image.height))
            return true
        }
        guard drawn else { throw .corrupt("Core Graphics could not draw the decoded image") }
        return DecodedImage(
            pixelWidth: size.width, pixelHeight: size.height, pixelFormat: .bgra8Premultiplied, bytesPerRow: bytesPerRow,
            pixels: pixels, frameCount: max(1, frameCount))
    }
}
#endif
