#if canImport(CJPEG)
import Foundation
import Testing

@testable import ImageDecoding

/// JPEG written with libjpeg-turbo directly (`LibJPEGEncoder`, what `VipsEncoder` uses for JPEG):
/// the pixels come back near what went in, alpha dropped, no metadata, and what JPEG cannot hold
/// is refused with libjpeg's own message as a typed error, not an exit of the process.
@Suite("Encoding JPEG with libjpeg-turbo")
struct JPEGEncodingTests {
    /// 96 × 64 translucent pixels with smooth gradients.
    static let image: DecodedImage = {
        var pixels = [UInt8]()
        for y in 0..<64 {
            for x in 0..<96 { pixels += [UInt8(x * 2), UInt8(y * 3), UInt8(128 + (x - y) / 2), UInt8(100 + x)] }
        }
        return DecodedImage(pixelWidth: 96, pixelHeight: 64, pixelFormat: .rgba8, bytesPerRow: 96 * 4, pixels: Data(pixels))
    }()

    @Test("the pixels come back within a few levels, opaque, from a baseline JPEG with no metadata")
    func roundTrip() throws {
        let bytes = try VipsEncoder().encode(Self.image, as: .jpeg, quality: 95)
        #expect(bytes.prefix(2) == Data([0xFF, 0xD8]) && bytes.suffix(2) == Data([0xFF, 0xD9]))
        // No APP1 (Exif or XMP) or APP2 (ICC) segment.
        #expect(bytes.firstRange(of: Data([0xFF, 0xE1])) == nil && bytes.firstRange(of: Data([0xFF, 0xE2])) == nil)
        let back = try PlatformImageDecoder(isolation: .inProcess).decode(bytes, processing: .original, maxPixelCount: 1 << 20)
        #expect((back.pixelWidth, back.pixelHeight) == (96, 64))
        #expect(back.isOpaque)
        var opaque = Self.image
        opaque = DecodedImage(
            pixelWidth: 96, pixelHeight: 64, pixelFormat: .rgba8, bytesPerRow: 96 * 4,
            pixels: Data(opaque.pixels.enumerated().map { $0.offset % 4 == 3 ? 255 : $0.element }))
        let difference = back.meanColourDifference(to: opaque)
        #expect(difference < 3, "mean difference \(difference)")
        let rough = try VipsEncoder().encode(Self.image, as: .jpeg, quality: 20)
        #expect(rough.count < bytes.count)
    }

    @Test("a side JPEG cannot hold, and an empty image, are refused with libjpeg's message")
    func refusals() {
        let wide = DecodedImage(
            pixelWidth: 65_501, pixelHeight: 1, pixelFormat: .rgba8, bytesPerRow: 65_501 * 4, pixels: Data(count: 65_501 * 4))
        #expect {
            try LibJPEGEncoder().encode(wide, quality: 85)
        } throws: { error in
            guard case let .invalidProcessing(reason) = error as? ImageDecodingError else { return false }
            return reason.contains("65500")
        }
        let empty = DecodedImage(pixelWidth: 0, pixelHeight: 0, pixelFormat: .rgba8, bytesPerRow: 0, pixels: Data())
        #expect(throws: ImageDecodingError.self) { try LibJPEGEncoder().encode(empty, quality: 85) }
        // The encoder is as good as before after a refusal.
        #expect((try? LibJPEGEncoder().encode(Self.image, quality: 85)) != nil)
    }
}
#endif
