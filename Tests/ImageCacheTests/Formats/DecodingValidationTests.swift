import Foundation
import LoopbackOrigin
import Testing

@testable import ImageFormats

/// ``ImageValidator/validateForDecoding(_:)`` finds what only decoding would otherwise show, on
/// files made here: a PNG whose zlib checksum or size is wrong, a GIF with an LZW code its table
/// cannot hold, an SVG whose references would draw billions of elements or loop; plain
/// ``ImageValidator/validate(_:)`` still accepts the first two, as it always has.
@Suite("Validation for decoding")
struct DecodingValidationTests {
    let validator = ImageValidator()

    /// A valid 16×16 PNG, and its IDAT chunk's data range.
    static func png() -> (bytes: [UInt8], idat: Range<Int>) {
        let bytes = [UInt8](PNGEncoder.encode(width: 16, height: 16) { x, y in (UInt8(x * 16), UInt8(y * 16), 9) })
        var offset = 8
        while offset < bytes.count {
            let length = bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            if bytes[(offset + 4)..<(offset + 8)].elementsEqual("IDAT".utf8) { return (bytes, (offset + 8)..<(offset + 8 + length)) }
            offset += 12 + length
        }
        preconditionFailure("the encoder wrote no IDAT")
    }

    /// `bytes` with the IDAT data at `range` replaced by `data` and its CRC recomputed, so only
    /// the data itself is wrong.
    static func replacingIDAT(_ bytes: [UInt8], _ range: Range<Int>, with data: [UInt8]) -> Data {
        var out = Array(bytes[..<(range.lowerBound - 8)])
        out += withUnsafeBytes(of: UInt32(data.count).bigEndian, Array.init)
        let typeAndData = Array("IDAT".utf8) + data
        out += typeAndData
        out += withUnsafeBytes(of: CRC32.checksum(typeAndData[...]).bigEndian, Array.init)
        out += bytes[(range.upperBound + 4)...]
        return Data(out)
    }

    @Test("a PNG whose Adler-32 or inflated size is wrong passes validate but not validateForDecoding")
    func pngImageData() throws {
        let (bytes, idat) = Self.png()
        let good = Data(bytes)
        #expect(try validator.validateForDecoding(good).pixelWidth == 16)
        var data = Array(bytes[idat])
        data[data.count - 1] ^= 0xFF
        let badChecksum = Self.replacingIDAT(bytes, idat, with: data)
        #expect(try validator.validate(badChecksum).pixelWidth == 16)
        #expect(throws: ImageValidationError.corruptStructure(format: .png, reason: "the Adler-32 of the image data does not match")) {
            try validator.validateForDecoding(badChecksum)
        }
        // The same pixels claimed for a taller image: the stream inflates to too few bytes.
        var taller = bytes
        taller[23] = 17  // IHDR height 16 → 17, CRC recomputed below
        let ihdr = Array(taller[12..<29])
        taller.replaceSubrange(29..<33, with: withUnsafeBytes(of: CRC32.checksum(ihdr[...]).bigEndian, Array.init))
        #expect {
            try validator.validateForDecoding(Data(taller))
        } throws: { error in
            guard case let .corruptStructure(_, reason) = error as? ImageValidationError else { return false }
            return reason.contains("not the") || reason.contains("ends early")
        }
    }

    /// A 2×2 GIF whose one frame holds `codes` (3 bits each, LSB first: clear is 4, end 5).
    static func gif(codes: [Int]) -> Data {
        var value = 0
        for (index, code) in codes.enumerated() { value |= code << (3 * index) }
        let byteCount = (3 * codes.count + 7) / 8
        let data = (0..<byteCount).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
        let bytes: [UInt8] =
            Array("GIF89a".utf8) + [2, 0, 2, 0, 0x80, 0, 0, 0, 0, 0, 255, 255, 255]
            + [0x2C, 0, 0, 0, 0, 2, 0, 2, 0, 0, 2, UInt8(data.count)] + data + [0, 0x3B]
        return Data(bytes)
    }

    @Test("a GIF with an LZW code beyond its table passes validate but not validateForDecoding")
    func gifCodes() throws {
        #expect(try validator.validateForDecoding(Self.gif(codes: [4, 0, 1, 6, 5])).pixelWidth == 2)
        let invalid = Self.gif(codes: [4, 0, 7, 5])
        #expect(try validator.validate(invalid).pixelWidth == 2)
        #expect {
            try validator.validateForDecoding(invalid)
        } throws: { error in
            guard case let .corruptStructure(format, reason) = error as? ImageValidationError else { return false }
            return format == .gif && reason.contains("invalid code 7")
        }
    }

    /// `levels` groups, each using the one before it `fanOut` times.
    static func nestedUses(levels: Int, fanOut: Int) -> Data {
        var svg = ##"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10"><defs><g id="l0"><rect width="1" height="1"/></g>"##
        for level in 1...levels {
            svg += ##"<g id="l\##(level)">"## + String(repeating: ##"<use xlink:href="#l\##(level - 1)"/>"##, count: fanOut) + "</g>"
        }
        svg += ##"</defs><use href="#l\##(levels)"/></svg>"##
        return Data(svg.utf8)
    }

    @Test("an SVG whose references would draw too much, or loop, is refused for decoding only")
    func svgRenderCost() throws {
        let modest = Self.nestedUses(levels: 3, fanOut: 9)
        #expect(try validator.validateForDecoding(modest).pixelWidth == 10)
        let gradient = Data(##"<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><linearGradient id="g"><stop offset="0"/></linearGradient><rect width="4" height="4" style="fill: url('#g')"/></svg>"##.utf8)
        #expect(try validator.validateForDecoding(gradient).pixelWidth == 4)
        let bomb = Self.nestedUses(levels: 9, fanOut: 9)
        #expect(try validator.validate(bomb).pixelWidth == 10)
        #expect {
            try validator.validateForDecoding(bomb)
        } throws: { error in
            guard case let .refusedContent(format, reason) = error as? ImageValidationError else { return false }
            return format == .svg && reason.contains("references are expanded")
        }
        let loop = Data(##"<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><g id="a"><use href="#b"/></g><g id="b"><use href="#a"/></g></svg>"##.utf8)
        #expect(throws: ImageValidationError.refusedContent(format: .svg, reason: "its references form a cycle")) {
            try validator.validateForDecoding(loop)
        }
    }
}
