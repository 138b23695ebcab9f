#if canImport(ImageIO) && canImport(CoreGraphics)
import CoreGraphics
import Foundation
import ImageIO

/// Encoding with ImageIO on Apple platforms: JPEG or PNG (ImageIO does not write WebP, so
/// ``EncodedFormat/choice(for:)`` picks JPEG there).
///
/// Compiled only on Apple platforms; this project's CI (Linux) does not build it.
public struct ImageIOEncoder: ImageEncoder {
    /// An encoder.
    public init() {}

    public func encode(_ image: DecodedImage, as format: EncodedFormat, quality: Int) throws(ImageDecodingError) -> Data {
        let type: CFString
        switch format {
        case .jpeg: type = "public.jpeg" as CFString
        case .png: type = "public.png" as CFString
        case .webp: throw .unsupportedFormat("ImageIO does not write WebP")
        }
        let alpha: UInt32 =
            switch image.pixelFormat {
            case .rgba8: CGImageAlphaInfo.last.rawValue
            case .bgra8Premultiplied: CGImageAlphaInfo.premultipliedFirst.rawValue | CGBitmapInfo.byteOrder32Little.rawValue
            }
        guard let provider = CGDataProvider(data: image.pixels as CFData), let space = CGColorSpace(name: CGColorSpace.sRGB),
            let cgImage = CGImage(
                width: image.pixelWidth, height: image.pixelHeight, bitsPerComponent: 8, bitsPerPixel: 32,
                bytesPerRow: image.bytesPerRow, space: space, bitmapInfo: CGBitmapInfo(rawValue: alpha), provider: provider,
                decode: nil, shouldInterpolate: true, intent: .defaultIntent)
        else { throw .invalidProcessing("the pixels do not make an image") }
        let output = NSMutableData()
        guard let destination = CGImageDestinationCreateWithData(output as CFMutableData, type, 1, nil) else {
            throw .unsupportedFormat("ImageIO cannot write \(format.rawValue)")
        }
        let options = [kCGImageDestinationLossyCompressionQuality: Double(min(max(quality, 1), 100)) / 100] as CFDictionary
        CGImageDestinationAddImage(destination, cgImage, options)
        guard CGImageDestinationFinalize(destination) else { throw .corrupt("ImageIO could not encode the image") }
        return output as Data
    }
}
#endif
