import Foundation

/// One BMP file for each way a bitmap stores its pixels, with the picture it should decode to.
enum BMPLayout: String, CaseIterable, Sendable {
    // Indices into a colour table.
    case indexed1, indexed2, indexed4, indexed8, indexed8TopDown, indexed8OS2Core, indexed4OS2, indexed8ShortPalette
    // Channels under masks.
    case rgb555, bitFields565, bitFields4444V4, rgb24, rgb24TopDown, rgb24OS2Core
    case rgb32UnusedAlpha, rgb32Alpha, bitFields32V5, alphaBitFields32, bitFields32V3NoAlpha, bitFields101010V2

    static let width = 13, height = 7

    /// A colour per pixel, alpha never zero everywhere.
    private static func colour(_ x: Int, _ y: Int) -> RGBA { RGBA(x * 19 + 7, y * 37 + 3, x * y * 7 + 50, (x + 2 * y) * 23 + 1) }

    /// The file and what it should decode to.
    var sample: (file: Data, expected: ExpectedImage) {
        let (width, height) = (Self.width, Self.height)
        switch self {
        case .indexed1, .indexed2, .indexed4, .indexed8, .indexed8TopDown, .indexed8OS2Core, .indexed4OS2:
            let bits = [.indexed1: 1, .indexed2: 2, .indexed4: 4, .indexed4OS2: 4][self] ?? 8
            let palette = GeneratedBitmaps.palette(1 << bits)
            let index = { (x: Int, y: Int) in (x + 3 * y) % palette.count }
            let topDown = self == .indexed8TopDown
            let writer = DIBWriter(
                headerSize: self == .indexed8OS2Core ? 12 : self == .indexed4OS2 ? 16 : 40, width: width, height: height,
                isTopDown: topDown, bitsPerPixel: bits, palette: palette,
                pixelData: GeneratedBitmaps.indexedPixels(width: width, height: height, bitsPerPixel: bits, topDown: topDown, index: index))
            return (writer.bmpFile, ExpectedImage(width: width, height: height) { x, y in palette[index(x, y)] })
        case .indexed8ShortPalette:
            // Four colours declared and stored; indices 4 and 5 name none and show black.
            let palette = GeneratedBitmaps.palette(4)
            let index = { (x: Int, y: Int) in (x + y) % 6 }
            let writer = DIBWriter(
                width: width, height: height, bitsPerPixel: 8, palette: palette, declaredColourCount: 4,
                pixelData: GeneratedBitmaps.indexedPixels(width: width, height: height, bitsPerPixel: 8, topDown: false, index: index))
            return (writer.bmpFile, ExpectedImage(width: width, height: height) { x, y in index(x, y) < 4 ? palette[index(x, y)] : .black })
        case .rgb555, .bitFields565, .bitFields4444V4:
            // (red, green, blue, alpha) bit widths, from the top of the 16 bits down.
            let bits = self == .rgb555 ? (5, 5, 5, 0) : self == .bitFields565 ? (5, 6, 5, 0) : (4, 4, 4, 4)
            let channels = { (x: Int, y: Int) -> (Int, Int, Int, Int) in
                let colour = Self.colour(x, y)
                return (Int(colour.r) >> (8 - bits.0), Int(colour.g) >> (8 - bits.1), Int(colour.b) >> (8 - bits.2),
                        bits.3 == 0 ? 0 : Int(colour.a) >> (8 - bits.3))
            }
            let value = { (x: Int, y: Int) -> UInt32 in
                let (r, g, b, a) = channels(x, y)
                return UInt32(a << (bits.0 + bits.1 + bits.2) | r << (bits.1 + bits.2) | g << bits.2 | b)
            }
            let masks: [UInt32] = self == .bitFields565 ? [0xF800, 0x07E0, 0x001F] : [0x0F00, 0x00F0, 0x000F, 0xF000]
            let writer = DIBWriter(
                headerSize: self == .bitFields4444V4 ? 108 : 40, width: width, height: height, bitsPerPixel: 16,
                compression: self == .rgb555 ? 0 : 3, masks: self == .rgb555 ? [] : masks,
                pixelData: GeneratedBitmaps.packedPixels(width: width, height: height, bitsPerPixel: 16, topDown: false, value: value))
            return (writer.bmpFile, ExpectedImage(width: width, height: height) { x, y in
                let (r, g, b, a) = channels(x, y)
                return RGBA(
                    GeneratedBitmaps.scaled(r, bits: bits.0), GeneratedBitmaps.scaled(g, bits: bits.1), GeneratedBitmaps.scaled(b, bits: bits.2),
                    bits.3 == 0 ? 255 : GeneratedBitmaps.scaled(a, bits: bits.3))
            })
        case .rgb24, .rgb24TopDown, .rgb24OS2Core:
            let topDown = self == .rgb24TopDown
            let writer = DIBWriter(
                headerSize: self == .rgb24OS2Core ? 12 : 40, width: width, height: height, isTopDown: topDown, bitsPerPixel: 24,
                pixelData: GeneratedBitmaps.packedPixels(width: width, height: height, bitsPerPixel: 24, topDown: topDown) { x, y in
                    let colour = Self.colour(x, y)
                    return UInt32(colour.r) << 16 | UInt32(colour.g) << 8 | UInt32(colour.b)
                })
            return (writer.bmpFile, ExpectedImage(width: width, height: height) { x, y in Self.opaque(x, y) })
        case .rgb32UnusedAlpha, .rgb32Alpha:
            // Without masks the high byte is alpha when some pixel's is not zero; all zero, it is filler.
            let writer = DIBWriter(
                width: width, height: height, bitsPerPixel: 32,
                pixelData: GeneratedBitmaps.packedPixels(width: width, height: height, bitsPerPixel: 32, topDown: false) { x, y in
                    let colour = Self.colour(x, y)
                    let alpha = self == .rgb32Alpha ? UInt32(colour.a) : 0
                    return alpha << 24 | UInt32(colour.r) << 16 | UInt32(colour.g) << 8 | UInt32(colour.b)
                })
            return (writer.bmpFile, ExpectedImage(width: width, height: height) { x, y in
                self == .rgb32Alpha ? Self.colour(x, y) : Self.opaque(x, y)
            })
        case .bitFields32V5, .alphaBitFields32, .bitFields32V3NoAlpha:
            // Channel byte positions (red, green, blue, alpha) the masks name, low byte 0.
            let positions =
                self == .bitFields32V5 ? (0, 1, 2, 3) : self == .alphaBitFields32 ? (3, 2, 1, 0) : (2, 1, 0, 3)
            let masks = [positions.0, positions.1, positions.2, positions.3].map { UInt32(0xFF) << (8 * $0) }
            let hasAlpha = self != .bitFields32V3NoAlpha
            let writer = DIBWriter(
                headerSize: self == .bitFields32V5 ? 124 : self == .alphaBitFields32 ? 40 : 56, width: width, height: height,
                bitsPerPixel: 32, compression: self == .alphaBitFields32 ? 6 : 3, masks: hasAlpha ? masks : Array(masks.prefix(3)) + [0],
                pixelData: GeneratedBitmaps.packedPixels(width: width, height: height, bitsPerPixel: 32, topDown: false) { x, y in
                    let colour = Self.colour(x, y)
                    // With no alpha mask the fourth byte is whatever the writer left there.
                    let alpha = hasAlpha ? UInt32(colour.a) : 0x5A
                    return UInt32(colour.r) << (8 * positions.0) | UInt32(colour.g) << (8 * positions.1)
                        | UInt32(colour.b) << (8 * positions.2) | alpha << (8 * positions.3)
                })
            return (writer.bmpFile, ExpectedImage(width: width, height: height) { x, y in
                hasAlpha ? Self.colour(x, y) : Self.opaque(x, y)
            })
        case .bitFields101010V2:
            let channels = { (x: Int, y: Int) in (x * 77 % 1024, y * 143 % 1024, (x * y * 31 + 500) % 1024) }
            let writer = DIBWriter(
                headerSize: 52, width: width, height: height, bitsPerPixel: 32, compression: 3,
                masks: [0x3FF0_0000, 0x000F_FC00, 0x0000_03FF],
                pixelData: GeneratedBitmaps.packedPixels(width: width, height: height, bitsPerPixel: 32, topDown: false) { x, y in
                    let (r, g, b) = channels(x, y)
                    return UInt32(r << 20 | g << 10 | b)
                })
            return (writer.bmpFile, ExpectedImage(width: width, height: height) { x, y in
                let (r, g, b) = channels(x, y)
                return RGBA(GeneratedBitmaps.scaled(r, bits: 10), GeneratedBitmaps.scaled(g, bits: 10), GeneratedBitmaps.scaled(b, bits: 10))
            })
        }
    }

    private static func opaque(_ x: Int, _ y: Int) -> RGBA {
        var colour = colour(x, y)
        colour.a = 255
        return colour
    }
}

/// Run-length coded BMPs (6 × 4 pixels), each with the indices it should decode to (nil: a pixel
/// no run draws, transparent), or nil when the data is damage to refuse.
enum RunLengthSample: String, CaseIterable, Sendable {
    /// RLE8: runs, a stretch stored as it is, row ends, a jump, the end of the bitmap.
    case rle8
    /// RLE4: alternating runs, an odd stretch stored as it is, row ends, an early end.
    case rle4
    /// A run of 200 pixels in a row of 6: the pixels past the row's end are dropped.
    case overlongRun
    /// A stretch of 8 stored pixels in a row of 6: the same.
    case overlongStretch
    /// A jump 10 pixels right, out of the image.
    case jumpPastRight
    /// A jump 9 rows up, out of the image.
    case jumpPastTop
    /// One run, then the data ends without finishing the image.
    case noEnd
    /// A stretch of 10 pixels whose bytes the data does not hold.
    case cutStretch

    static let width = 6, height = 4

    var bitsPerPixel: Int { self == .rle4 ? 4 : 8 }

    /// The run-length data.
    var data: [UInt8] {
        switch self {
        case .rle8: [3, 1, 0, 3, 2, 3, 4, 0, 0, 0, 4, 5, 0, 0, 0, 2, 2, 1, 2, 6, 0, 1]
        case .rle4: [5, 0x12, 0, 0, 0, 3, 0x34, 0x50, 3, 0x77, 0, 0, 6, 0x9A, 0, 0, 0, 1]
        case .overlongRun: [200, 1, 0, 0, 2, 2, 0, 1]
        case .overlongStretch: [0, 8, 1, 2, 3, 4, 5, 6, 7, 7, 0, 1]
        case .jumpPastRight: [1, 1, 0, 2, 10, 0, 1, 1, 0, 1]
        case .jumpPastTop: [1, 1, 0, 2, 0, 9, 0, 1]
        case .noEnd: [3, 1]
        case .cutStretch: [0, 10, 1, 2]
        }
    }

    /// The indices each row should show, top row first; nil when decoding must fail.
    var expectedIndices: [[Int?]]? {
        let none: [Int?] = Array(repeating: nil, count: 6)
        switch self {
        case .rle8: return [[nil, nil, 6, 6, nil, nil], none, [5, 5, 5, 5, nil, nil], [1, 1, 1, 2, 3, 4]]
        case .rle4: return [none, [9, 10, 9, 10, 9, 10], [3, 4, 5, 7, 7, 7], [1, 2, 1, 2, 1, nil]]
        case .overlongRun: return [none, none, [2, 2, nil, nil, nil, nil], [1, 1, 1, 1, 1, 1]]
        case .overlongStretch: return [none, none, none, [1, 2, 3, 4, 5, 6]]
        case .jumpPastRight, .jumpPastTop, .noEnd, .cutStretch: return nil
        }
    }

    static let palette = GeneratedBitmaps.palette(16)

    var file: Data {
        DIBWriter(
            width: Self.width, height: Self.height, bitsPerPixel: bitsPerPixel, compression: self == .rle4 ? 2 : 1,
            palette: Array(Self.palette.prefix(1 << bitsPerPixel)), pixelData: data
        ).bmpFile
    }
}
