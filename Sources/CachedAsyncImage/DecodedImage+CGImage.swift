#if canImport(CoreGraphics)
import CoreGraphics
import Foundation
import ImageCache

extension DecodedImage {
    /// The pixels as a `CGImage` in sRGB, sharing their buffer (no copy): what SwiftUI draws.
    var cgImage: CGImage? {
        guard let provider = CGDataProvider(data: pixels as CFData),
            let space = CGColorSpace(name: CGColorSpace.sRGB)
        else { return nil }
        // RGBA in memory is alpha last in big-endian order; BGRA (ImageIO's) is alpha first read
        // little-endian, its colours premultiplied. Alpha is always declared: telling opaque
        // images apart would scan every pixel on each render of the view.
        let alpha: CGImageAlphaInfo
        let order: CGBitmapInfo
        switch pixelFormat {
        case .rgba8: (alpha, order) = (.last, .byteOrder32Big)
        case .bgra8Premultiplied: (alpha, order) = (.premultipliedFirst, .byteOrder32Little)
        }
        return CGImage(
            width: pixelWidth, height: pixelHeight, bitsPerComponent: 8, bitsPerPixel: 32, bytesPerRow: bytesPerRow,
            space: space, bitmapInfo: CGBitmapInfo(rawValue: alpha.rawValue).union(order), provider: provider,
            decode: nil, shouldInterpolate: true, intent: .defaultIntent)
    }
}
#endif
