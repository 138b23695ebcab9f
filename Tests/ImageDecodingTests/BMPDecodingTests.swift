import Foundation
import ImageDecoding
import Testing
import TestSupport

/// BMP files of every pixel layout, made here, decode to exactly their pixels; damaged run-length
/// data never writes outside the image; processing resizes a bitmap as it does any image.
@Suite("Decoding BMP files")
struct BMPDecodingTests {
    let decoder = PlatformImageDecoder()
    static let limit = 100_000_000

    @Test("every BMP layout decodes to exactly its pixels", arguments: BMPLayout.allCases)
    func layouts(_ layout: BMPLayout) async throws {
        let (file, expected) = layout.sample
        let image = try await decoder.decodeOffPool(file, processing: .original, maxPixelCount: Self.limit)
        #expect(image.pixelFormat == .rgba8 && image.bytesPerRow == image.pixelWidth * 4 && image.frameCount == 1)
        expectPixels(image, expected, layout.rawValue)
    }

    @Test("run-length data decodes run by run; runs past a row's end are dropped; pixels no run draws are transparent",
          arguments: RunLengthSample.allCases.filter { $0.expectedIndices != nil })
    func runLength(_ sample: RunLengthSample) async throws {
        let rows = try #require(sample.expectedIndices)
        let expected = ExpectedImage(width: RunLengthSample.width, height: RunLengthSample.height) { x, y in
            rows[y][x].map { RunLengthSample.palette[$0] } ?? .clear
        }
        let image = try await decoder.decodeOffPool(sample.file, processing: .original, maxPixelCount: Self.limit)
        expectPixels(image, expected, sample.rawValue)
    }

    @Test("run-length data that jumps out of the image or ends early is refused as damaged",
          arguments: RunLengthSample.allCases.filter { $0.expectedIndices == nil })
    func damagedRunLength(_ sample: RunLengthSample) async throws {
        await #expect {
            try await decoder.decodeOffPool(sample.file, processing: .original, maxPixelCount: Self.limit)
        } throws: { error in
            guard case let .corrupt(detail) = error as? ImageDecodingError else { return false }
            return detail.contains("run-length")
        }
    }

    @Test("seeded byte flips in every generated BMP and icon decode or fail with a typed error, never crash")
    func byteFlips() async throws {
        let icons = ICODecodingTests.BitmapEntry.allCases.map { entry in
            GeneratedBitmaps.icon([ICODecodingTests.smallEntry, (entry.sample.bytes, ICODecodingTests.BitmapEntry.width, ICODecodingTests.BitmapEntry.height, entry.bitsPerPixel)])
        }
        let files = BMPLayout.allCases.map(\.sample.file) + RunLengthSample.allCases.map(\.file) + icons
        var generator = SeededRandom(seed: 0xB1_7F11)
        var decoded = 0, runs = 0
        for file in files {
            let original = [UInt8](file)
            for _ in 0..<60 {
                var mutated = original
                // Half the runs hit the headers and tables, where the layout is decided.
                let span = Bool.random(using: &generator) ? min(200, mutated.count) : mutated.count
                for _ in 0..<Int.random(in: 1...6, using: &generator) {
                    mutated[Int.random(in: 0..<span, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                }
                runs += 1
                do {
                    let image = try await decoder.decodeOffPool(Data(mutated), processing: .original, maxPixelCount: 1_000_000)
                    #expect(image.pixels.count == image.pixelWidth * image.pixelHeight * 4)
                    decoded += 1
                } catch {
                    continue  // A typed ImageDecodingError: what damage should give.
                }
            }
        }
        // Most flips land in pixels, which any value is valid for: the decoder really ran.
        #expect(decoded > runs / 4, "\(decoded) of \(runs) decoded")
    }

    @Test("a bit-field BMP whose masks are missing (its pixels start where they would) is refused as corrupt")
    func missingMasks() async throws {
        var file = [UInt8](BMPLayout.bitFields565.sample.file)
        // Drop the 12 bytes of masks after the 40-byte header; the pixel offset then points at them.
        file.removeSubrange(54..<66)
        file.replaceSubrange(10..<14, with: [54, 0, 0, 0])
        await #expect {
            try await decoder.decodeOffPool(Data(file), processing: .original, maxPixelCount: Self.limit)
        } throws: { error in
            guard case let .invalidImage(.corruptStructure(format, reason)) = error as? ImageDecodingError else { return false }
            return format == .bmp && reason.contains("bit masks")
        }
    }

    /// A 400 × 300 quadrant picture as a 24-bit BMP.
    static let quadrants: Data = {
        let (width, height) = (400, 300)
        return DIBWriter(
            width: width, height: height, bitsPerPixel: 24,
            pixelData: GeneratedBitmaps.packedPixels(width: width, height: height, bitsPerPixel: 24, topDown: false) { x, y in
                let (r, g, b) = GeneratedImages.quadrant(x: x, y: y, width: width, height: height)
                return UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)
            }
        ).bmpFile
    }()

    @Test(
        "each processing gives a BMP the size it names, aspect ratio kept, never enlarged",
        arguments: [
            (ImageProcessing.original, 400, 300), (.thumbnail(maxPixelSize: 100), 100, 75),
            (.thumbnail(maxPixelSize: 1_000), 400, 300), (.resized(width: 50, height: 50, mode: .fit), 50, 38),
            (.resized(width: 50, height: 50, mode: .fill), 50, 50), (.resized(width: 120, height: 40, mode: .fill), 120, 40),
        ])
    func sizes(processing: ImageProcessing, width: Int, height: Int) async throws {
        let image = try await decoder.decodeOffPool(Self.quadrants, processing: processing, maxPixelCount: Self.limit)
        #expect((image.pixelWidth, image.pixelHeight) == (width, height), "\(processing.identifier)")
        #expect(image.pixels.count == width * height * 4 && image.isOpaque)
        // Resampling keeps the quadrants where they were: red top left, white bottom right.
        let (topLeft, bottomRight) = (image.pixel(x: 1, y: 1), image.pixel(x: image.pixelWidth - 2, y: image.pixelHeight - 2))
        #expect(topLeft.0 > 200 && topLeft.1 < 60 && topLeft.2 < 60, "\(processing.identifier): \(topLeft)")
        #expect(bottomRight.0 > 200 && bottomRight.1 > 200 && bottomRight.2 > 200, "\(processing.identifier): \(bottomRight)")
    }

    @Test("a thumbnail of a BMP with alpha keeps it straight: clear stays clear, and no colour bleeds from it")
    func alphaThumbnail() async throws {
        // Left half fully transparent green, right half opaque blue.
        let (width, height) = (200, 100)
        let file = DIBWriter(
            width: width, height: height, bitsPerPixel: 32,
            pixelData: GeneratedBitmaps.packedPixels(width: width, height: height, bitsPerPixel: 32, topDown: false) { x, _ in
                x < width / 2 ? 0x0000_FF00 : 0xFF00_00FF
            }
        ).bmpFile
        let image = try await decoder.decodeOffPool(file, processing: .thumbnail(maxPixelSize: 50), maxPixelCount: Self.limit)
        #expect((image.pixelWidth, image.pixelHeight) == (50, 25))
        #expect(image.pixel(x: 2, y: 12).3 == 0)
        let blue = image.pixel(x: 47, y: 12)
        #expect(blue.3 == 255 && blue.2 > 240 && blue.1 < 10 && blue.0 < 10, "\(blue)")
        // Next to the edge, a partly covered pixel keeps its colour blue: green weighs nothing at alpha 0.
        let edge = image.pixel(x: 25, y: 12)
        #expect(edge.1 < 10, "\(edge)")
    }
}
