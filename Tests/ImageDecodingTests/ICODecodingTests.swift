import Foundation
import ImageDecoding
import Testing

/// Icons made here: the largest entry is the one shown, a bitmap entry's transparency comes from
/// its alpha or its mask, a PNG entry of any colour type decodes as RGBA.
@Suite("Decoding icons")
struct ICODecodingTests {
    let decoder = PlatformImageDecoder()
    static let limit = 100_000_000

    /// The bitmap entries an icon may hold.
    enum BitmapEntry: String, CaseIterable, Sendable {
        case indexed1, indexed4, indexed8, rgb16, rgb24, rgb32UnusedAlpha, rgb32Alpha

        static let width = 20, height = 12

        var bitsPerPixel: Int { [.indexed1: 1, .indexed4: 4, .indexed8: 8, .rgb16: 16, .rgb24: 24][self] ?? 32 }

        /// The mask's transparent pixels.
        static func masked(_ x: Int, _ y: Int) -> Bool { (x + y) % 3 == 0 || y == 0 }

        private static func colour(_ x: Int, _ y: Int) -> RGBA { RGBA(x * 12 + 5, y * 20 + 9, 200 - x * 7, x * 11 + y * 3 + 1) }

        /// The entry's bytes and the picture it should decode to. The 32-bit entry with alpha
        /// carries a mask that hides everything: its alpha, not its mask, must decide.
        var sample: (bytes: [UInt8], expected: ExpectedImage) {
            let (width, height) = (Self.width, Self.height)
            var writer = DIBWriter(width: width, height: height, bitsPerPixel: bitsPerPixel)
            let colours: (Int, Int) -> RGBA
            if bitsPerPixel <= 8 {
                let palette = GeneratedBitmaps.palette(1 << bitsPerPixel)
                let index = { (x: Int, y: Int) in (2 * x + y) % palette.count }
                writer.palette = palette
                writer.pixelData = GeneratedBitmaps.indexedPixels(width: width, height: height, bitsPerPixel: bitsPerPixel, topDown: false, index: index)
                colours = { x, y in palette[index(x, y)] }
            } else if bitsPerPixel == 16 {
                writer.pixelData = GeneratedBitmaps.packedPixels(width: width, height: height, bitsPerPixel: 16, topDown: false) { x, y in
                    UInt32((x % 32) << 10 | (y % 32) << 5 | 31)
                }
                colours = { x, y in RGBA(GeneratedBitmaps.scaled(x % 32, bits: 5), GeneratedBitmaps.scaled(y % 32, bits: 5), 255) }
            } else {
                let withAlpha = self == .rgb32Alpha
                writer.pixelData = GeneratedBitmaps.packedPixels(width: width, height: height, bitsPerPixel: bitsPerPixel, topDown: false) { x, y in
                    let colour = Self.colour(x, y)
                    return (withAlpha ? UInt32(colour.a) << 24 : 0) | UInt32(colour.r) << 16 | UInt32(colour.g) << 8 | UInt32(colour.b)
                }
                colours = { x, y in withAlpha ? Self.colour(x, y) : RGBA(r: Self.colour(x, y).r, g: Self.colour(x, y).g, b: Self.colour(x, y).b) }
            }
            let mask = GeneratedBitmaps.andMask(width: width, height: height) { x, y in self == .rgb32Alpha || Self.masked(x, y) }
            let expected = ExpectedImage(width: width, height: height) { x, y in
                var colour = colours(x, y)
                if self != .rgb32Alpha { colour.a = Self.masked(x, y) ? 0 : 255 }
                return colour
            }
            return (writer.iconEntry(mask: mask), expected)
        }
    }

    /// A 4 × 4 24-bit entry, opaque red: smaller than every other entry here, and placed first,
    /// where icons usually keep their small sizes.
    static let smallEntry: (bytes: [UInt8], width: Int, height: Int, bitsPerPixel: Int) = {
        let writer = DIBWriter(
            width: 4, height: 4, bitsPerPixel: 24,
            pixelData: GeneratedBitmaps.packedPixels(width: 4, height: 4, bitsPerPixel: 24, topDown: false) { _, _ in 0xFF_0000 })
        return (writer.iconEntry(mask: GeneratedBitmaps.andMask(width: 4, height: 4) { _, _ in false }), 4, 4, 24)
    }()

    @Test("a bitmap entry decodes with its mask's transparency, or its own alpha when it has one", arguments: BitmapEntry.allCases)
    func bitmapEntries(_ entry: BitmapEntry) async throws {
        let (bytes, expected) = entry.sample
        let icon = GeneratedBitmaps.icon([Self.smallEntry, (bytes, BitmapEntry.width, BitmapEntry.height, entry.bitsPerPixel)])
        let image = try await decoder.decodeOffPool(icon, processing: .original, maxPixelCount: Self.limit)
        #expect(image.frameCount == 2)
        expectPixels(image, expected, entry.rawValue)
    }

    @Test("a PNG entry of every colour type and depth decodes as RGBA, through the PNG decoder", arguments: PNGKind.allCases)
    func pngEntries(_ kind: PNGKind) async throws {
        let png = [UInt8](kind.png)
        let icon = GeneratedBitmaps.icon([Self.smallEntry, (png, PNGKind.width, PNGKind.height, 32)])
        let image = try await decoder.decodeOffPool(icon, processing: .original, maxPixelCount: Self.limit)
        #expect(image.frameCount == 2 && image.pixelFormat == .rgba8)
        expectPixels(image, kind.expected, kind.rawValue)
    }

    @Test("of two entries the same size, the deeper one is shown")
    func deepestOfEqualSizes() async throws {
        let shallow = BitmapEntry.indexed4.sample, deep = BitmapEntry.rgb32Alpha.sample
        let (width, height) = (BitmapEntry.width, BitmapEntry.height)
        let icon = GeneratedBitmaps.icon([(shallow.bytes, width, height, 4), (deep.bytes, width, height, 32), Self.smallEntry])
        let image = try await decoder.decodeOffPool(icon, processing: .original, maxPixelCount: Self.limit)
        expectPixels(image, deep.expected, "the 32-bit entry")
    }

    @Test("an entry whose mask is missing from its bytes is opaque")
    func missingMask() async throws {
        let writer = DIBWriter(
            width: 8, height: 8, bitsPerPixel: 24,
            pixelData: GeneratedBitmaps.packedPixels(width: 8, height: 8, bitsPerPixel: 24, topDown: false) { _, _ in 0x00_80FF })
        let icon = GeneratedBitmaps.icon([(writer.iconEntry(mask: []), 8, 8, 24)])
        let image = try await decoder.decodeOffPool(icon, processing: .original, maxPixelCount: Self.limit)
        expectPixels(image, ExpectedImage(width: 8, height: 8) { _, _ in RGBA(0, 128, 255) }, "no mask")
    }

    @Test("a bitmap entry stored run-length compressed or top-down, or whose colour table runs past its entry, is refused as corrupt")
    func refusedEntries() async throws {
        let pixels = GeneratedBitmaps.indexedPixels(width: 8, height: 8, bitsPerPixel: 8, topDown: false) { x, _ in x }
        let mask = GeneratedBitmaps.andMask(width: 8, height: 8) { _, _ in false }
        let runLength = DIBWriter(
            width: 8, height: 8, bitsPerPixel: 8, compression: 1, palette: GeneratedBitmaps.palette(8), declaredColourCount: 8,
            pixelData: [8, 1, 0, 1])
        var topDown = DIBWriter(width: 8, height: 8, bitsPerPixel: 8, palette: GeneratedBitmaps.palette(8), declaredColourCount: 8, pixelData: pixels)
        // The header's height field, doubled, negative: top-down.
        var topDownBytes = topDown.iconEntry(mask: mask)
        topDownBytes.replaceSubrange(8..<12, with: withUnsafeBytes(of: Int32(-16).littleEndian, Array.init))
        topDown.declaredColourCount = 1_000
        let entries: [(String, [UInt8])] = [
            ("run-length", runLength.iconEntry(mask: mask)), ("top-down", topDownBytes),
            ("colour table", topDown.iconEntry(mask: mask)),
        ]
        for (name, entry) in entries {
            let icon = GeneratedBitmaps.icon([(entry, 8, 8, 8)])
            await #expect("\(name)") {
                try await decoder.decodeOffPool(icon, processing: .original, maxPixelCount: Self.limit)
            } throws: { error in
                guard case let .invalidImage(.corruptStructure(format, reason)) = error as? ImageDecodingError else { return false }
                return format == .ico && reason.contains(name == "colour table" ? "declares 1000 colours, more than its entry holds" : "which icons never are")
            }
        }
    }

    @Test("a thumbnail of an icon is its largest entry resampled, for bitmap and PNG entries alike")
    func thumbnails() async throws {
        let (width, height) = (64, 64)
        let quadrant = { (x: Int, y: Int) in GeneratedImages.quadrant(x: x, y: y, width: width, height: height) }
        let bitmap = DIBWriter(
            width: width, height: height, bitsPerPixel: 24,
            pixelData: GeneratedBitmaps.packedPixels(width: width, height: height, bitsPerPixel: 24, topDown: false) { x, y in
                let (r, g, b) = quadrant(x, y)
                return UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)
            }
        ).iconEntry(mask: GeneratedBitmaps.andMask(width: width, height: height) { _, _ in false })
        let png = [UInt8](GeneratedImages.png(width: width, height: height, color: quadrant))
        for (name, entry) in [("bitmap", bitmap), ("PNG", png)] {
            let icon = GeneratedBitmaps.icon([Self.smallEntry, (entry, width, height, 24)])
            for (processing, size) in [(ImageProcessing.thumbnail(maxPixelSize: 32), (32, 32)), (.resized(width: 40, height: 20, mode: .fill), (40, 20))] {
                let image = try await decoder.decodeOffPool(icon, processing: processing, maxPixelCount: Self.limit)
                #expect((image.pixelWidth, image.pixelHeight) == size, "\(name) \(processing.identifier)")
                #expect(image.frameCount == 2, "\(name) \(processing.identifier)")
                let corner = image.pixel(x: 1, y: 1)
                #expect(corner.0 > 200 && corner.1 < 60 && corner.2 < 60 && corner.3 == 255, "\(name) \(processing.identifier): \(corner)")
            }
        }
    }
}
