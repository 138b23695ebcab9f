import Foundation

/// Writes real PNG files without any library, for an origin to serve (the demo's feed, the
/// tests' images): filter 0, in zlib "stored" (uncompressed) deflate blocks, so a `side`×`side`
/// RGB image is about 3 × side² bytes.
public enum PNGEncoder {
    /// A PNG colour type (ISO/IEC 15948, 11.2.2): what each pixel's samples are.
    public enum ColourType: UInt8, Sendable, CaseIterable {
        case grey = 0, rgb = 2, palette = 3, greyAlpha = 4, rgba = 6
    }

    /// An 8-bit RGB PNG of `width`×`height` whose pixel at (x, y) is `pixel(x, y)`, tagged with
    /// the ICC profile `iccProfile` (an `iCCP` chunk) when one is given.
    public static func encode(
        width: Int, height: Int, iccProfile: Data? = nil, pixel: (_ x: Int, _ y: Int) -> (UInt8, UInt8, UInt8)
    ) -> Data {
        let rows = (0..<height).map { y in
            (0..<width).flatMap { x in
                let (r, g, b) = pixel(x, y)
                return [r, g, b]
            }
        }
        return encode(width: width, height: height, colourType: .rgb, bitDepth: 8, iccProfile: iccProfile, rows: rows)
    }

    /// A PNG of `width`×`height` whose scanlines are `rows`, already packed as `colourType` at
    /// `bitDepth` bits per sample (16-bit samples big-endian), without their filter bytes; with a
    /// `PLTE` chunk of `palette` (RGB triples) and a `tRNS` chunk of `transparency` when given.
    public static func encode(
        width: Int, height: Int, colourType: ColourType, bitDepth: UInt8, palette: [UInt8]? = nil,
        transparency: [UInt8]? = nil, iccProfile: Data? = nil, rows: [[UInt8]]
    ) -> Data {
        var raw = [UInt8]()
        raw.reserveCapacity(rows.reduce(0) { $0 + $1.count + 1 })
        for row in rows {
            raw.append(0)
            raw += row
        }
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var header = Data()
        header.appendBigEndian(UInt32(width))
        header.appendBigEndian(UInt32(height))
        header.append(contentsOf: [bitDepth, colourType.rawValue, 0, 0, 0])
        png.appendChunk("IHDR", header)
        if let iccProfile {
            // Keyword, its terminator, compression method 0, then the zlib stream.
            png.appendChunk("iCCP", Data("ICC".utf8) + Data([0, 0]) + zlibStored([UInt8](iccProfile)))
        }
        if let palette { png.appendChunk("PLTE", Data(palette)) }
        if let transparency { png.appendChunk("tRNS", Data(transparency)) }
        png.appendChunk("IDAT", zlibStored(raw))
        png.appendChunk("IEND", Data())
        return png
    }

    private static func zlibStored(_ bytes: [UInt8]) -> Data {
        var out = Data([0x78, 0x01])
        var offset = 0
        repeat {
            let length = min(65_535, bytes.count - offset)
            let final: UInt8 = offset + length == bytes.count ? 1 : 0
            out.append(final)
            out.append(contentsOf: [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)])
            out.append(contentsOf: bytes[offset..<(offset + length)])
            offset += length
        } while offset < bytes.count
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        out.appendBigEndian((b << 16) | a)
        return out
    }

    static let crcTable: [UInt32] = (0..<256).map { index in
        (0..<8).reduce(UInt32(index)) { value, _ in value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
    }
}

extension Data {
    fileprivate mutating func appendBigEndian(_ value: UInt32) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }

    fileprivate mutating func appendChunk(_ type: String, _ payload: Data) {
        appendBigEndian(UInt32(payload.count))
        let typed = Data(type.utf8) + payload
        append(typed)
        let crc = typed.reduce(UInt32.max) { crc, byte in PNGEncoder.crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        appendBigEndian(~crc)
    }
}
