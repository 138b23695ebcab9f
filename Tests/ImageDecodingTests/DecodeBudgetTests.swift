import Foundation
import ImageDecoding
import TestSupport
import Testing

@testable import ImageFormats

/// The decoded-bytes budget: what a decoder builds is counted from the validated header (size,
/// sample depth, shrink-on-load) and refused over its limit, lower for thumbnails than for originals,
/// while a large JPEG's thumbnail, which libjpeg shrinks while it loads, is not refused.
@Suite("Decode budget")
struct DecodeBudgetTests {
    let decoder = PlatformImageDecoder()
    static let limit = 100_000_000

    /// A 16-bit RGBA PNG of `width` × `height` transparent black pixels, its image data a real
    /// zlib stream (a few megabytes for 100 megapixels).
    static func png16(width: Int, height: Int) -> Data {
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typeAndBody = Array(type.utf8) + body
            return bigEndian32(UInt32(body.count)) + typeAndBody + bigEndian32(CRC32.checksum(typeAndBody[...]))
        }
        func bigEndian32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += chunk("IHDR", bigEndian32(UInt32(width)) + bigEndian32(UInt32(height)) + [16, 6, 0, 0, 0])
        // Each row: filter type 0, then 8 bytes per pixel, all zero.
        bytes += chunk("IDAT", ZeroRunZlib.stream(zeroCount: height * (1 + width * 8)))
        bytes += chunk("IEND", [])
        return Data(bytes)
    }

    @Test("a 16-bit RGBA PNG at the pixel limit is refused before decoding, for a preview and as the original")
    func sixteenBitAtTheLimit() async throws {
        let png = Self.png16(width: 10_000, height: 10_000)
        for processing in [ImageProcessing.thumbnail(maxPixelSize: 340), .original] {
            await #expect(throws: ImageDecodingError.overBudget(
                bytes: 800_000_000, limit: processing == .original ? 512 << 20 : 256 << 20, processing: processing)) {
                _ = try await decoder.decodeOffPool(png, processing: processing, maxPixelCount: Self.limit)
            }
        }
        // The same kind of file, small, decodes.
        let small = try await decoder.decodeOffPool(Self.png16(width: 64, height: 48), processing: .thumbnail(maxPixelSize: 32), maxPixelCount: Self.limit)
        #expect((small.pixelWidth, small.pixelHeight) == (32, 24))
    }

    @Test("a large JPEG's thumbnail counts the image libjpeg shrinks it to while loading; a PNG's counts it whole")
    func shrinkOnLoad() {
        let budget = DecodeBudget()
        let photo = ImageInfo(format: .jpeg, pixelWidth: 12_000, pixelHeight: 8_000)
        // 1/8 scale: 1500 × 1000 RGBA.
        #expect(budget.bytesBuilt(for: photo, processing: .thumbnail(maxPixelSize: 256)) == 6_000_000)
        #expect((try? budget.check(photo, processing: .thumbnail(maxPixelSize: 256))) != nil)
        #expect((try? budget.check(photo, processing: .original)) != nil)
        // A target only 3 times smaller leaves libjpeg nothing to shrink: 384 MB, over the thumbnail limit.
        #expect(throws: ImageDecodingError.self) { try budget.check(photo, processing: .resized(width: 4000, height: 4000, mode: .fit)) }
        // A target the image fits is decoded as the original is, and held to its limit.
        #expect((try? budget.check(photo, processing: .thumbnail(maxPixelSize: 20_000))) != nil)

        let scan = ImageInfo(format: .png, pixelWidth: 12_000, pixelHeight: 8_000, bytesPerPixel: 3)
        #expect(budget.bytesBuilt(for: scan, processing: .thumbnail(maxPixelSize: 256)) == 384_000_000)
        #expect(throws: ImageDecodingError.overBudget(bytes: 384_000_000, limit: 256 << 20, processing: .thumbnail(maxPixelSize: 256))) {
            try budget.check(scan, processing: .thumbnail(maxPixelSize: 256))
        }
        // WebP and SVG load at the size asked; an SVG's embedded images load whole.
        let webp = ImageInfo(format: .webp, pixelWidth: 12_000, pixelHeight: 8_000)
        #expect(budget.bytesBuilt(for: webp, processing: .thumbnail(maxPixelSize: 300)) == 300 * 200 * 4)
        let svg = ImageInfo(format: .svg, pixelWidth: 100, pixelHeight: 100, embeddedPixelCount: 90_000_000)
        #expect(budget.bytesBuilt(for: svg, processing: .thumbnail(maxPixelSize: 50)) == 50 * 50 * 4 + 360_000_000)
    }

    @Test("a raised pixel limit raises the original's budget with it, at 4 bytes a pixel")
    func raisedPixelLimit() {
        #expect(DecodeBudget(maxPixelCount: 100_000_000).originalByteLimit == 512 << 20)
        #expect(DecodeBudget(maxPixelCount: 250_000_000).originalByteLimit == 1_000_000_000)
        #expect(DecodeBudget(maxPixelCount: .max).originalByteLimit == .max)
    }

    @Test("the refusal says what was asked, what it would build and what to do")
    func message() {
        let error = ImageDecodingError.overBudget(bytes: 800_000_000, limit: 256 << 20, processing: .thumbnail(maxPixelSize: 340))
        #expect(error.description.contains("max340") && error.description.contains("800000000") && error.description.contains("request a smaller rendition"))
    }
}
