import Foundation
import ImageDecoding
import LoopbackOrigin
import Testing

@testable import ImageDecoding

/// Decoded pixels resampled in Swift (`PixelResampler`), the step that makes each size of an image
/// from the decode kept beside its bytes: held to libvips' own thumbnail of the same bytes, size
/// for size, and to what premultiplied alpha and an unscaled crop promise.
@Suite("Resampling decoded pixels")
struct PixelResamplerTests {
    static let limit = 100_000_000

    /// A photo-like 600 × 400 image: smooth gradients and a fine pattern, which a wrong filter or
    /// an offset by a pixel would show.
    static let photo = PNGEncoder.encode(width: 600, height: 400) { x, y in
        (UInt8((x * 255) / 599), UInt8((y * 255) / 399), UInt8(128 + Int(100 * sin(Double(x + y) / 9))))
    }

    @Test(
        "each size resampled from the decoded image is libvips' thumbnail of the bytes, to the pixel in size and within two levels on average",
        arguments: [
            ImageProcessing.thumbnail(maxPixelSize: 100), .thumbnail(maxPixelSize: 257), .thumbnail(maxPixelSize: 599),
            .resized(width: 120, height: 120, mode: .fill), .resized(width: 200, height: 50, mode: .fit),
            .resized(width: 90, height: 300, mode: .fill),
        ])
    func matchesLibvips(_ processing: ImageProcessing) throws {
        try Self.expectResampleMatchesLibvips(Self.photo, processing, opaque: true)
    }

    /// `bytes` decoded whole and resampled as `processing` asks, against libvips' own thumbnail of
    /// them: the same size, and within two levels on average.
    static func expectResampleMatchesLibvips(_ bytes: Data, _ processing: ImageProcessing, opaque: Bool) throws {
        let decoder = PlatformImageDecoder(isolation: .inProcess)
        let whole = try decoder.decode(bytes, processing: .original, maxPixelCount: limit)
        try #require(whole.isOpaque == opaque)
        let expected = try decoder.decode(bytes, processing: processing, maxPixelCount: limit)
        let resampled = try PixelResampler.resample(whole, processing: processing)
        #expect((resampled.pixelWidth, resampled.pixelHeight) == (expected.pixelWidth, expected.pixelHeight))
        try #require(resampled.pixels.count == expected.pixels.count)
        let difference = resampled.meanColourDifference(to: expected)
        #expect(difference < 2, "mean difference \(difference) levels for \(processing.identifier)")
    }

    /// The photo with alpha rising from left to right, so that the resample premultiplies.
    static let translucent = PNGEncoder.encode(
        width: 600, height: 400, colourType: .rgba, bitDepth: 8,
        rows: (0..<400).map { y in
            (0..<600).flatMap { x -> [UInt8] in
                let wave = 128 + Int(100 * sin(Double(x + y) / 9))
                return [UInt8((x * 255) / 599), UInt8((y * 255) / 399), UInt8(wave), UInt8(64 + (x * 191) / 599)]
            }
        })

    @Test(
        "a translucent image resampled is libvips' thumbnail of the bytes, alpha and colours, within two levels on average",
        arguments: [
            ImageProcessing.thumbnail(maxPixelSize: 100), .thumbnail(maxPixelSize: 257), .resized(width: 120, height: 120, mode: .fill),
        ])
    func translucentMatchesLibvips(_ processing: ImageProcessing) throws {
        try Self.expectResampleMatchesLibvips(Self.translucent, processing, opaque: false)
    }

    /// A translucent strip shrunk 400 times: each block's lines are summed in integers as many
    /// at a time as fit 32 bits, then added as floats.
    static let strip = PNGEncoder.encode(
        width: 8_000, height: 400, colourType: .rgba, bitDepth: 8,
        rows: (0..<400).map { y in
            (0..<8_000).flatMap { x -> [UInt8] in
                let red = UInt8((x * 255) / 7_999)
                let green = UInt8((y * 255) / 399)
                let alpha = UInt8(128 + (x * 127) / 7_999)
                return [red, green, 255, alpha]
            }
        })

    @Test("a block past what one integer sum holds is libvips' thumbnail too")
    func largestBlock() throws {
        #expect(400 * 400 > SourceRows.largestBlock)
        try Self.expectResampleMatchesLibvips(Self.strip, .thumbnail(maxPixelSize: 20), opaque: false)
    }

    @Test("a base resamples as its image does, with the opacity it read once", arguments: [false, true])
    func baseResample(translucent: Bool) throws {
        let decoder = PlatformImageDecoder(isolation: .inProcess)
        let image = try decoder.decode(translucent ? Self.translucent : Self.photo, processing: .original, maxPixelCount: Self.limit)
        let base = DecodedBase(shrink: 1, image: image)
        #expect(base.isOpaque == !translucent)
        let processing = ImageProcessing.thumbnail(maxPixelSize: 150)
        #expect(try PixelResampler.resample(base, processing: processing) == PixelResampler.resample(image, processing: processing))
    }

    @Test("an image is opaque exactly when every pixel's alpha is 255, wherever the one that is not lies")
    func opacity() {
        // 7 × 3 pixels: whole eight-byte words and a pixel left over.
        let opaque = [UInt8](repeating: 255, count: 7 * 3 * 4)
        #expect(DecodedImage(pixelWidth: 7, pixelHeight: 3, pixelFormat: .rgba8, bytesPerRow: 28, pixels: Data(opaque)).isOpaque)
        for pixel in 0..<21 {
            var pixels = opaque
            pixels[pixel * 4 + 3] = 254
            // A colour below 255 never makes an image translucent.
            pixels[(pixel * 4 + 4) % pixels.count] = 0
            let image = DecodedImage(pixelWidth: 7, pixelHeight: 3, pixelFormat: .rgba8, bytesPerRow: 28, pixels: Data(pixels))
            #expect(!image.isOpaque, "pixel \(pixel)")
        }
        var coloured = opaque
        for index in coloured.indices where index % 4 != 3 { coloured[index] = UInt8(index % 251) }
        #expect(DecodedImage(pixelWidth: 7, pixelHeight: 3, pixelFormat: .rgba8, bytesPerRow: 28, pixels: Data(coloured)).isOpaque)
    }

    @Test("a transparent pixel's colour does not bleed into its opaque neighbours, and alpha is resampled with the colours")
    func premultipliedAlpha() throws {
        // Left half opaque red, right half fully transparent green: without premultiplying, the
        // green would bleed into the red at the edge.
        let pixels = Data((0..<200 * 100).flatMap { index -> [UInt8] in index % 200 < 100 ? [255, 0, 0, 255] : [0, 255, 0, 0] })
        let image = DecodedImage(pixelWidth: 200, pixelHeight: 100, pixelFormat: .rgba8, bytesPerRow: 800, pixels: pixels)
        let small = try PixelResampler.resample(image, processing: .thumbnail(maxPixelSize: 50))
        #expect((small.pixelWidth, small.pixelHeight) == (50, 25))
        for x in 0..<50 {
            let (red, green, _, alpha) = small.pixel(x: x, y: 12)
            if alpha > 0 { #expect(green == 0 && red >= 250, "x \(x): \(red), \(green), alpha \(alpha)") }
            if x < 23 { #expect(alpha == 255) }
            if x > 26 { #expect(alpha == 0) }
        }
    }

    @Test("an unscaled crop is the source's centre pixel for pixel; a size the image fits is the image itself")
    func unscaledCropAndFit() throws {
        let decoder = PlatformImageDecoder(isolation: .inProcess)
        let whole = try decoder.decode(Self.photo, processing: .original, maxPixelCount: Self.limit)
        let cropped = try PixelResampler.resample(whole, processing: .resized(width: 300, height: 400, mode: .fill))
        #expect((cropped.pixelWidth, cropped.pixelHeight) == (300, 400))
        for (x, y) in [(0, 0), (17, 200), (299, 399), (150, 3)] {
            #expect(cropped.pixel(x: x, y: y) == whole.pixel(x: x + 150, y: y))
        }
        #expect(try PixelResampler.resample(whole, processing: .thumbnail(maxPixelSize: 600)) == whole)
        #expect(try PixelResampler.resample(whole, processing: .resized(width: 900, height: 900, mode: .fit)) == whole)
    }

    @Test("pixels not tightly packed RGBA, and a size of zero, are refused with a typed error")
    func refusals() {
        let padded = DecodedImage(
            pixelWidth: 2, pixelHeight: 2, pixelFormat: .rgba8, bytesPerRow: 12, pixels: Data(count: 24))
        #expect(throws: ImageDecodingError.self) { try PixelResampler.resample(padded, processing: .thumbnail(maxPixelSize: 1)) }
        let image = DecodedImage(pixelWidth: 2, pixelHeight: 2, pixelFormat: .rgba8, bytesPerRow: 8, pixels: Data(count: 16))
        #expect(throws: ImageDecodingError.self) { try PixelResampler.resample(image, processing: .thumbnail(maxPixelSize: 0)) }
    }
}
