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
        let alpha: CGImageAlphaInfo = isOpaque ? .noneSkipLast : .last
        let order: CGBitmapInfo = pixelFormat == .bgra8 ? .byteOrder32Little : []
        return CGImage(
            width: pixelWidth, height: pixelHeight, bitsPerComponent: 8, bitsPerPixel: 32, bytesPerRow: bytesPerRow,
            space: space, bitmapInfo: CGBitmapInfo(rawValue: alpha.rawValue).union(order), provider: provider,
            decode: nil, shouldInterpolate: true, intent: .defaultIntent)
    }
}
#endif
