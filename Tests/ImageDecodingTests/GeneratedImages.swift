import Foundation
import ImageDecoding
import LoopbackOrigin

/// Images the decoding suites make themselves, so they run on a clone without `../shared`.
enum GeneratedImages {
    /// A PNG whose every pixel is `color(x, y)`.
    static func png(width: Int, height: Int, color: (Int, Int) -> (UInt8, UInt8, UInt8)) -> Data {
        PNGEncoder.encode(width: width, height: height, pixel: color)
    }

    /// Four coloured quadrants (red, green / blue, white): upright only one way, and far enough
    /// apart that JPEG's loss cannot mistake one for another.
    static func quadrant(x: Int, y: Int, width: Int, height: Int) -> (UInt8, UInt8, UInt8) {
        switch (x < width / 2, y < height / 2) {
        case (true, true): (255, 0, 0)
        case (false, true): (0, 255, 0)
        case (true, false): (0, 0, 255)
        case (false, false): (255, 255, 255)
        }
    }

    /// A JPEG whose stored pixels, shown with EXIF `orientation`, are the upright `width` × `height`
    /// quadrant image: stored as the inverse of the orientation's transform, tagged with it.
    static func orientedJPEG(orientation: Int, width: Int, height: Int) throws -> Data {
        let swaps = orientation >= 5
        let (storedWidth, storedHeight) = swaps ? (height, width) : (width, height)
        var pixels = Data(count: storedWidth * storedHeight * 4)
        pixels.withUnsafeMutableBytes { (bytes: UnsafeMutableRawBufferPointer) in
            for storedY in 0..<storedHeight {
                for storedX in 0..<storedWidth {
                    let (x, y) = upright(storedX, storedY, orientation: orientation, storedWidth, storedHeight)
                    let (r, g, b) = quadrant(x: x, y: y, width: width, height: height)
                    let offset = (storedY * storedWidth + storedX) * 4
                    (bytes[offset], bytes[offset + 1], bytes[offset + 2], bytes[offset + 3]) = (r, g, b, 255)
                }
            }
        }
        let stored = DecodedImage(
            pixelWidth: storedWidth, pixelHeight: storedHeight, pixelFormat: .rgba8, bytesPerRow: storedWidth * 4,
            pixels: pixels)
        let jpeg = try PlatformImageEncoder().encode(stored, as: .jpeg, quality: 95)
        return withOrientation(jpeg, orientation)
    }

    /// Where stored pixel (`x`, `y`) lands when the image is shown with EXIF `orientation` (TIFF 6.0
    /// tag 274): 1 as stored, 2 mirrored, 3 turned half way, 4 flipped, 5 transposed, 6 turned a
    /// quarter clockwise, 7 transversed, 8 turned a quarter anticlockwise.
    static func upright(_ x: Int, _ y: Int, orientation: Int, _ width: Int, _ height: Int) -> (Int, Int) {
        switch orientation {
        case 2: (width - 1 - x, y)
        case 3: (width - 1 - x, height - 1 - y)
        case 4: (x, height - 1 - y)
        case 5: (y, x)
        case 6: (height - 1 - y, x)
        case 7: (height - 1 - y, width - 1 - x)
        case 8: (y, width - 1 - x)
        default: (x, y)
        }
    }

    /// `jpeg` with an APP1 EXIF segment holding only the orientation, right after its SOI marker.
    static func withOrientation(_ jpeg: Data, _ orientation: Int) -> Data {
        // "Exif\0\0", a little-endian TIFF header, one IFD entry: tag 0x0112, SHORT, count 1, value.
        let tiff: [UInt8] =
            [0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00, 0x01, 0x00]
            + [0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, UInt8(orientation), 0x00, 0x00, 0x00]
            + [0x00, 0x00, 0x00, 0x00]
        let payload: [UInt8] = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        let segment: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        return jpeg.prefix(2) + Data(segment) + jpeg.dropFirst(2)
    }
}

/// A PNG of each colour type and depth, with the pixels it should decode to: every kind must come
/// out as four channels of 8-bit RGBA.
enum PNGKind: String, CaseIterable, Sendable {
    case grey8, grey16, greyAlpha8, greyAlpha16, palette, paletteWithTransparency, rgb8, rgb16, rgba8, rgba16

    static let width = 7, height = 5

    /// Five colours, and the alpha of the first three (a `tRNS` chunk may be shorter than the palette).
    private static let colours = GeneratedBitmaps.palette(5)
    private static let colourAlphas: [UInt8] = [255, 0, 128]

    private static func grey(_ x: Int, _ y: Int) -> Int { (x * 37 + y * 51) % 256 }
    private static func colour(_ x: Int, _ y: Int) -> RGBA { RGBA(x * 35 + 9, y * 57 + 4, (x + y) * 21 + 60, x * 30 + y * 11 + 5) }
    private static func index(_ x: Int, _ y: Int) -> Int { (x + 2 * y) % 5 }

    /// What each pixel should decode to.
    var expected: ExpectedImage {
        ExpectedImage(width: Self.width, height: Self.height) { x, y in
            let colour = Self.colour(x, y), grey = UInt8(Self.grey(x, y))
            switch self {
            case .grey8, .grey16: return RGBA(r: grey, g: grey, b: grey)
            case .greyAlpha8, .greyAlpha16: return RGBA(r: grey, g: grey, b: grey, a: colour.a)
            case .palette: return Self.colours[Self.index(x, y)]
            case .paletteWithTransparency:
                let index = Self.index(x, y)
                var entry = Self.colours[index]
                entry.a = index < Self.colourAlphas.count ? Self.colourAlphas[index] : 255
                return entry
            case .rgb8, .rgb16: return RGBA(r: colour.r, g: colour.g, b: colour.b)
            case .rgba8, .rgba16: return colour
            }
        }
    }

    /// The PNG's bytes. 16-bit samples are the 8-bit value repeated (v × 257), so any fair
    /// reduction to 8 bits gives v back.
    var png: Data {
        let is16 = rawValue.hasSuffix("16")
        func samples(_ values: [UInt8]) -> [UInt8] { is16 ? values.flatMap { [$0, $0] } : values }
        let expected = expected
        let rows = (0..<Self.height).map { y in
            (0..<Self.width).flatMap { x -> [UInt8] in
                let pixel = expected[x, y]
                switch self {
                case .grey8, .grey16: return samples([pixel.r])
                case .greyAlpha8, .greyAlpha16: return samples([pixel.r, pixel.a])
                case .palette, .paletteWithTransparency: return [UInt8(Self.index(x, y))]
                case .rgb8, .rgb16: return samples([pixel.r, pixel.g, pixel.b])
                case .rgba8, .rgba16: return samples([pixel.r, pixel.g, pixel.b, pixel.a])
                }
            }
        }
        let colourType: PNGEncoder.ColourType =
            switch self {
            case .grey8, .grey16: .grey
            case .greyAlpha8, .greyAlpha16: .greyAlpha
            case .palette, .paletteWithTransparency: .palette
            case .rgb8, .rgb16: .rgb
            case .rgba8, .rgba16: .rgba
            }
        let isIndexed = colourType == .palette
        return PNGEncoder.encode(
            width: Self.width, height: Self.height, colourType: colourType, bitDepth: is16 ? 16 : 8,
            palette: isIndexed ? Self.colours.flatMap { [$0.r, $0.g, $0.b] } : nil,
            transparency: self == .paletteWithTransparency ? Self.colourAlphas : nil, rows: rows)
    }
}
