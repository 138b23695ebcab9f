import Foundation
import ImageDecoding
import LoopbackOrigin
import Testing

/// The platform decoder on images made here: exact pixels, sizes for every processing, orientation,
/// the pixel limit, and damage refused with typed errors.
@Suite("Decoding generated images")
struct DecoderTests {
    let decoder = PlatformImageDecoder()
    static let limit = 100_000_000

    @Test("a PNG decodes to exactly its pixels, as opaque RGBA")
    func exactPixels() async throws {
        let png = GeneratedImages.png(width: 7, height: 5) { x, y in (UInt8(x * 30), UInt8(y * 50), 77) }
        let image = try await decoder.decodeOffPool(png, processing: .original, maxPixelCount: Self.limit)
        #expect((image.pixelWidth, image.pixelHeight) == (7, 5))
        #expect(image.pixelFormat == .rgba8 && image.bytesPerRow == 28 && image.pixels.count == 140)
        #expect(image.frameCount == 1 && image.isOpaque && image.cost == 140)
        for y in 0..<5 {
            for x in 0..<7 { #expect(image.pixel(x: x, y: y) == (UInt8(x * 30), UInt8(y * 50), 77, 255), "(\(x), \(y))") }
        }
    }

    @Test("a PNG of every colour type and depth decodes to four channels of its exact pixels", arguments: PNGKind.allCases)
    func colourTypes(_ kind: PNGKind) async throws {
        let image = try await decoder.decodeOffPool(kind.png, processing: .original, maxPixelCount: Self.limit)
        #expect(image.pixelFormat == .rgba8 && image.bytesPerRow == image.pixelWidth * 4)
        expectPixels(image, kind.expected, kind.rawValue)
    }

    @Test(
        "each processing gives the size it names, aspect ratio kept, never enlarged",
        arguments: [
            (ImageProcessing.original, 400, 300), (.thumbnail(maxPixelSize: 100), 100, 75),
            (.thumbnail(maxPixelSize: 1_000), 400, 300), (.resized(width: 50, height: 50, mode: .fit), 50, 38),
            (.resized(width: 50, height: 50, mode: .fill), 50, 50), (.resized(toPoints: 60, 20, scale: 2, mode: .fill), 120, 40),
        ])
    func sizes(processing: ImageProcessing, width: Int, height: Int) async throws {
        let png = GeneratedImages.png(width: 400, height: 300) { x, y in GeneratedImages.quadrant(x: x, y: y, width: 400, height: 300) }
        let image = try await decoder.decodeOffPool(png, processing: processing, maxPixelCount: Self.limit)
        #expect((image.pixelWidth, image.pixelHeight) == (width, height), "\(processing.identifier)")
        // Resampling keeps the quadrants where they were: the top-left corner stays red.
        let corner = image.pixel(x: 1, y: 1)
        #expect(corner.0 > 200 && corner.1 < 60 && corner.2 < 60, "\(processing.identifier): \(corner)")
    }

    @Test("a thumbnail keeps its image's colours: an untagged image is sRGB, left as it is", arguments: [
        (UInt8(20), UInt8(40), UInt8(220)), (200, 40, 30), (0, 255, 0), (128, 128, 128),
    ])
    func thumbnailColours(colour: (UInt8, UInt8, UInt8)) async throws {
        let png = GeneratedImages.png(width: 300, height: 200) { _, _ in colour }
        for processing in [ImageProcessing.original, .thumbnail(maxPixelSize: 60), .resized(width: 40, height: 40, mode: .fill)] {
            let image = try await decoder.decodeOffPool(png, processing: processing, maxPixelCount: Self.limit)
            let pixel = image.pixel(x: image.pixelWidth / 2, y: image.pixelHeight / 2)
            let distance = [abs(Int(pixel.0) - Int(colour.0)), abs(Int(pixel.1) - Int(colour.1)), abs(Int(pixel.2) - Int(colour.2))].max()!
            #expect(distance <= 2, "\(processing.identifier): \(pixel), expected \(colour)")
        }
    }

    @Test("a PNG tagged Display P3 is converted to sRGB through its profile, whole and as a thumbnail", arguments: [
        (UInt8(200), UInt8(100), UInt8(50)), (40, 160, 220), (120, 200, 90),
    ])
    func displayP3(colour: (UInt8, UInt8, UInt8)) async throws {
        let expected = DisplayP3.inSRGB(colour)
        // Far enough from the stored values that a decoder ignoring the profile fails.
        let shift = max(abs(expected.0 - Double(colour.0)), abs(expected.1 - Double(colour.1)), abs(expected.2 - Double(colour.2)))
        #expect(shift > 10, "P3 \(colour) is \(expected) in sRGB: too close to tell")
        let tagged = PNGEncoder.encode(width: 300, height: 200, iccProfile: DisplayP3.profile) { _, _ in colour }
        for processing in [ImageProcessing.original, .thumbnail(maxPixelSize: 60)] {
            let image = try await decoder.decodeOffPool(tagged, processing: processing, maxPixelCount: Self.limit)
            let pixel = image.pixel(x: image.pixelWidth / 2, y: image.pixelHeight / 2)
            let distance = max(abs(Double(pixel.0) - expected.0), abs(Double(pixel.1) - expected.1), abs(Double(pixel.2) - expected.2))
            #expect(distance <= 3, "\(processing.identifier): P3 \(colour) came out \(pixel), expected \(expected)")
        }
    }

    @Test("identifiers are stable names of what was asked")
    func identifiers() {
        #expect(ImageProcessing.original.identifier == "original")
        #expect(ImageProcessing.thumbnail(maxPixelSize: 256).identifier == "max256")
        #expect(ImageProcessing.resized(width: 120, height: 80, mode: .fill).identifier == "fill120x80")
        #expect(ImageProcessing.resized(toPoints: 60, 40, scale: 2, mode: .fit).identifier == "fit120x80")
    }

    @Test("all eight EXIF orientations come out as the same upright pixels", arguments: 1...8)
    func orientation(_ orientation: Int) async throws {
        let jpeg = try GeneratedImages.orientedJPEG(orientation: orientation, width: 48, height: 32)
        let image = try await decoder.decodeOffPool(jpeg, processing: .original, maxPixelCount: Self.limit)
        #expect((image.pixelWidth, image.pixelHeight) == (48, 32), "orientation \(orientation)")
        for (x, y) in [(8, 8), (40, 8), (8, 24), (40, 24)] {
            let expected = GeneratedImages.quadrant(x: x, y: y, width: 48, height: 32)
            let actual = image.pixel(x: x, y: y)
            let distance = [abs(Int(actual.0) - Int(expected.0)), abs(Int(actual.1) - Int(expected.1)), abs(Int(actual.2) - Int(expected.2))].max()!
            #expect(distance < 40, "orientation \(orientation) at (\(x), \(y)): \(actual), expected \(expected)")
        }
        // A thumbnail is upright too, its size from the upright image.
        let thumbnail = try await decoder.decodeOffPool(jpeg, processing: .thumbnail(maxPixelSize: 24), maxPixelCount: Self.limit)
        #expect((thumbnail.pixelWidth, thumbnail.pixelHeight) == (24, 16), "orientation \(orientation)")
    }

    @Test("an image over the pixel limit is refused by the validator before its pixels are decoded")
    func pixelLimit() async throws {
        let png = GeneratedImages.png(width: 200, height: 100) { _, _ in (1, 2, 3) }
        await #expect(throws: ImageDecodingError.invalidImage(.tooManyPixels(format: .png, width: 200, height: 100, limit: 19_999))) {
            try await decoder.decodeOffPool(png, processing: .thumbnail(maxPixelSize: 10), maxPixelCount: 19_999)
        }
        #expect(try await decoder.decodeOffPool(png, processing: .original, maxPixelCount: 20_000).pixelWidth == 200)
    }

    @Test("bytes that are no image, a truncated image and a bad size are typed errors that keep the validator's verdict")
    func refusals() async throws {
        let html = Data("<html><body>Not found</body></html>".utf8)
        for bytes in [html, Data()] {
            await #expect {
                try await decoder.decodeOffPool(bytes, processing: .original, maxPixelCount: Self.limit)
            } throws: { error in
                guard case let .invalidImage(validation) = error as? ImageDecodingError else { return false }
                return validation.stage == .sniff && "\(error)".hasPrefix("The image cannot be decoded")
            }
        }
        let png = GeneratedImages.png(width: 64, height: 64) { x, y in (UInt8(x), UInt8(y), UInt8(x ^ y)) }
        await #expect {
            try await decoder.decodeOffPool(png.prefix(png.count / 2), processing: .original, maxPixelCount: Self.limit)
        } throws: { error in
            guard case let .invalidImage(validation) = error as? ImageDecodingError else { return false }
            return validation.stage == .structure
        }
        await #expect(throws: ImageDecodingError.self) {
            try await decoder.decodeOffPool(png, processing: .thumbnail(maxPixelSize: 0), maxPixelCount: Self.limit)
        }
    }

    @Test("encoding: PNG keeps pixels and alpha exactly; WebP and JPEG stay close; the choice follows alpha")
    func encoding() async throws {
        var pixels = Data(count: 16 * 16 * 4)
        pixels.withUnsafeMutableBytes { (bytes: UnsafeMutableRawBufferPointer) in
            for index in 0..<(16 * 16) {
                (bytes[index * 4], bytes[index * 4 + 1], bytes[index * 4 + 2], bytes[index * 4 + 3]) = (200, 100, 50, index < 128 ? 255 : 128)
            }
        }
        let translucent = DecodedImage(pixelWidth: 16, pixelHeight: 16, pixelFormat: .rgba8, bytesPerRow: 64, pixels: pixels)
        #expect(EncodedFormat.choice(for: translucent) == .png)
        let encoder = PlatformImageEncoder()
        let png = try encoder.encode(translucent, as: .png, quality: 90)
        #expect(try await decoder.decodeOffPool(png, processing: .original, maxPixelCount: Self.limit).pixels == pixels)
        let opaque = try await decoder.decodeOffPool(
            GeneratedImages.png(width: 16, height: 16) { _, _ in (200, 100, 50) }, processing: .original, maxPixelCount: Self.limit)
        #expect(EncodedFormat.choice(for: opaque) == .jpeg)
        for format in [EncodedFormat.webp, .jpeg] {
            let bytes = try encoder.encode(opaque, as: format, quality: 90)
            let back = try await decoder.decodeOffPool(bytes, processing: .original, maxPixelCount: Self.limit)
            let pixel = back.pixel(x: 8, y: 8)
            #expect(abs(Int(pixel.0) - 200) < 8 && abs(Int(pixel.1) - 100) < 8 && abs(Int(pixel.2) - 50) < 8, "\(format): \(pixel)")
            #expect(back.isOpaque, "\(format)")
        }
    }
}
