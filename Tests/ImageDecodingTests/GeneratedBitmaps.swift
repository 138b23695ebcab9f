import Foundation
import LoopbackOrigin

/// One pixel as a decoder should give it: 8-bit RGBA, straight alpha.
struct RGBA: Equatable, Sendable, CustomStringConvertible {
    var r: UInt8, g: UInt8, b: UInt8, a: UInt8

    static let black = RGBA(r: 0, g: 0, b: 0, a: 255)
    static let clear = RGBA(r: 0, g: 0, b: 0, a: 0)

    init(r: UInt8, g: UInt8, b: UInt8, a: UInt8 = 255) {
        (self.r, self.g, self.b, self.a) = (r, g, b, a)
    }

    /// Decimal-free shorthand for the pictures below: each channel taken modulo 256.
    init(_ r: Int, _ g: Int, _ b: Int, _ a: Int = 255) {
        self.init(r: UInt8(r & 0xFF), g: UInt8(g & 0xFF), b: UInt8(b & 0xFF), a: UInt8(a & 0xFF))
    }

    var description: String { "(\(r), \(g), \(b), \(a))" }
}

/// A picture: what a generated file should decode to.
struct ExpectedImage: Sendable {
    let width: Int
    let height: Int
    let pixels: [RGBA]

    init(width: Int, height: Int, pixel: (_ x: Int, _ y: Int) -> RGBA) {
        self.width = width
        self.height = height
        pixels = (0..<height).flatMap { y in (0..<width).map { x in pixel(x, y) } }
    }

    subscript(x: Int, y: Int) -> RGBA { pixels[y * width + x] }
}

/// A device-independent bitmap as a BMP file or an icon entry stores it, written field by field
/// from the Windows and OS/2 header layouts (12 to 124 bytes), so the decoder's tests do not
/// depend on any encoder.
struct DIBWriter {
    /// 12 (OS/2 1.x), 16 or 64 (OS/2 2.x), 40 (BITMAPINFOHEADER), 52, 56, 108 (V4), 124 (V5).
    var headerSize = 40
    var width: Int
    var height: Int
    var isTopDown = false
    var bitsPerPixel: Int
    /// 0 none, 1 RLE8, 2 RLE4, 3 bit fields, 6 alpha bit fields.
    var compression: UInt32 = 0
    /// Red, green, blue (and alpha) masks: inside a header of 52 bytes or more, after a shorter one.
    var masks: [UInt32] = []
    var palette: [RGBA] = []
    /// The header's count of colours used (0: the default, 2^bitsPerPixel).
    var declaredColourCount = 0
    /// The pixel array as stored: padded rows in storage order, or run-length data.
    var pixelData: [UInt8] = []

    /// The header (its height field `heightField`), the masks after it, the colour table.
    func headerAndTables(heightField: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.appendLittleEndian(UInt32(headerSize))
        if headerSize == 12 {
            for field in [width, heightField, 1, bitsPerPixel] { out.appendLittleEndian(UInt16(field)) }
        } else {
            out.appendLittleEndian(UInt32(width))
            out.appendLittleEndian(UInt32(bitPattern: Int32(heightField)))
            out.appendLittleEndian(UInt16(1))
            out.appendLittleEndian(UInt16(bitsPerPixel))
            if headerSize >= 40 {
                for field in [compression, UInt32(pixelData.count), 2835, 2835, UInt32(declaredColourCount), 0] {
                    out.appendLittleEndian(field)
                }
            }
            if [52, 56, 108, 124].contains(headerSize) {
                let inHeader = headerSize == 52 ? 3 : 4
                for index in 0..<inHeader { out.appendLittleEndian(index < masks.count ? masks[index] : 0) }
            }
            out += [UInt8](repeating: 0, count: headerSize - out.count)  // Colour space fields: zero.
            if [40, 64].contains(headerSize), compression == 3 || compression == 6 {
                for mask in masks { out.appendLittleEndian(mask) }
            }
        }
        for colour in palette {
            out += [colour.b, colour.g, colour.r]
            if headerSize != 12 { out.append(0) }
        }
        return out
    }

    /// A whole BMP file: the file header, then the DIB with its pixels right after the tables.
    var bmpFile: Data {
        let tables = headerAndTables(heightField: isTopDown ? -height : height)
        let pixelOffset = 14 + tables.count
        var file: [UInt8] = Array("BM".utf8)
        file.appendLittleEndian(UInt32(pixelOffset + pixelData.count))
        file.appendLittleEndian(UInt32(0))
        file.appendLittleEndian(UInt32(pixelOffset))
        return Data(file + tables + pixelData)
    }

    /// An icon entry: the DIB with its height doubled, then `mask`, the transparency rows.
    func iconEntry(mask: [UInt8]) -> [UInt8] {
        headerAndTables(heightField: 2 * height) + pixelData + mask
    }
}

/// Pixel arrays and files made from pictures.
enum GeneratedBitmaps {
    /// `indices` packed at `bitsPerPixel` (leftmost pixel in the high bits), rows padded to 32
    /// bits, in storage order.
    static func indexedPixels(width: Int, height: Int, bitsPerPixel: Int, topDown: Bool, index: (Int, Int) -> Int) -> [UInt8] {
        let rowBytes = (width * bitsPerPixel + 31) / 32 * 4
        var out = [UInt8](repeating: 0, count: rowBytes * height)
        for row in 0..<height {
            let y = topDown ? row : height - 1 - row
            for x in 0..<width {
                let bit = x * bitsPerPixel
                out[row * rowBytes + bit / 8] |= UInt8(index(x, y) << (8 - bitsPerPixel - bit % 8))
            }
        }
        return out
    }

    /// `value` of each pixel, little-endian in `bitsPerPixel / 8` bytes, rows padded, in storage order.
    static func packedPixels(width: Int, height: Int, bitsPerPixel: Int, topDown: Bool, value: (Int, Int) -> UInt32) -> [UInt8] {
        let rowBytes = (width * bitsPerPixel + 31) / 32 * 4
        var out = [UInt8](repeating: 0, count: rowBytes * height)
        for row in 0..<height {
            let y = topDown ? row : height - 1 - row
            for x in 0..<width {
                let pixel = value(x, y)
                for byte in 0..<(bitsPerPixel / 8) { out[row * rowBytes + x * bitsPerPixel / 8 + byte] = UInt8(pixel >> (8 * byte) & 0xFF) }
            }
        }
        return out
    }

    /// An icon's transparency mask: a set bit where `transparent`, rows padded to 32 bits, bottom-up.
    static func andMask(width: Int, height: Int, transparent: (Int, Int) -> Bool) -> [UInt8] {
        indexedPixels(width: width, height: height, bitsPerPixel: 1, topDown: false) { x, y in transparent(x, y) ? 1 : 0 }
    }

    /// An icon file of `images` (each an entry's bytes and its size), in that order.
    static func icon(_ images: [(bytes: [UInt8], width: Int, height: Int, bitsPerPixel: Int)]) -> Data {
        var directory: [UInt8] = [0, 0, 1, 0]
        directory.appendLittleEndian(UInt16(images.count))
        var offset = 6 + 16 * images.count
        for image in images {
            directory += [UInt8(image.width & 0xFF), UInt8(image.height & 0xFF), 0, 0]
            directory.appendLittleEndian(UInt16(1))
            directory.appendLittleEndian(UInt16(image.bitsPerPixel))
            directory.appendLittleEndian(UInt32(image.bytes.count))
            directory.appendLittleEndian(UInt32(offset))
            offset += image.bytes.count
        }
        return Data(directory + images.flatMap(\.bytes))
    }

    /// A palette of `count` colours far apart from each other.
    static func palette(_ count: Int) -> [RGBA] {
        (0..<count).map { RGBA($0 * 67 + 10, $0 * 29 + 100, 255 - $0 * 45) }
    }

    /// A channel of `bits` bits scaled to 8, rounded: what a decoder should make of it.
    static func scaled(_ value: Int, bits: Int) -> Int {
        let maximum = (1 << bits) - 1
        return (value * 255 + maximum / 2) / maximum
    }
}

extension [UInt8] {
    mutating func appendLittleEndian(_ value: UInt16) {
        append(contentsOf: [UInt8(value & 0xFF), UInt8(value >> 8)])
    }

    mutating func appendLittleEndian(_ value: UInt32) {
        append(contentsOf: (0..<4).map { UInt8(value >> (8 * $0) & 0xFF) })
    }
}
