import Foundation

/// Animated images written byte by byte, so the tests need no encoder and no corpus.
enum AnimatedImages {
    typealias Colour = (red: UInt8, green: UInt8, blue: UInt8)

    /// A looping GIF89a of `frames`, each `width`×`height`: a frame's left half is its first
    /// colour, its right half the second. Colours come from one global table of at most four.
    static func gif(width: Int, height: Int, palette: [Colour], frames: [(left: Int, right: Int)]) -> Data {
        precondition(palette.count <= 4 && frames.allSatisfy { $0.left < palette.count && $0.right < palette.count })
        // Screen, then a global table of four entries (size field 1), colour resolution 2 bits.
        var bytes = Array("GIF89a".utf8) + le16(width) + le16(height) + [0x91, 0, 0]
        for index in 0..<4 {
            let colour: Colour = index < palette.count ? palette[index] : (0, 0, 0)
            bytes += [colour.red, colour.green, colour.blue]
        }
        bytes += [0x21, 0xFF, 0x0B] + Array("NETSCAPE2.0".utf8) + [0x03, 0x01, 0x00, 0x00, 0x00]  // loop forever
        for frame in frames {
            bytes += [0x21, 0xF9, 0x04, 0x04] + le16(10) + [0x00, 0x00]  // 100 ms, keep the frame
            bytes += [0x2C] + le16(0) + le16(0) + le16(width) + le16(height) + [0x00]
            let indices = (0..<height).flatMap { _ in (0..<width).map { $0 < width / 2 ? frame.left : frame.right } }
            bytes += [2] + subBlocks(lzwCodes(indices)) + [0x00]
        }
        return Data(bytes + [0x3B])
    }

    /// LZW with a minimum code size of 2 (clear 4, end 5), every pixel a literal after a clear:
    /// the table never grows past its first free code, so codes stay 3 bits wide.
    private static func lzwCodes(_ indices: [Int]) -> [UInt8] {
        let codes = indices.flatMap { [4, $0] } + [5]
        var packed = [UInt8](repeating: 0, count: (codes.count * 3 + 7) / 8)
        for (position, code) in codes.enumerated() {
            for bit in 0..<3 where code >> bit & 1 == 1 {
                let offset = position * 3 + bit
                packed[offset / 8] |= 1 << (offset % 8)
            }
        }
        return packed
    }

    private static func subBlocks(_ data: [UInt8]) -> [UInt8] {
        stride(from: 0, to: data.count, by: 255).flatMap { start -> [UInt8] in
            let block = data[start..<min(start + 255, data.count)]
            return [UInt8(block.count)] + block
        }
    }

    /// An animated WebP (VP8X, ANIM, one ANMF per colour) whose frames are each one solid,
    /// opaque colour over the whole canvas, in lossless VP8L.
    static func webp(width: Int, height: Int, frames: [Colour]) -> Data {
        var vp8x: [UInt8] = [0x02, 0, 0, 0]  // animation
        vp8x += le24(width - 1) + le24(height - 1)
        var body = Array("WEBP".utf8) + chunk("VP8X", vp8x) + chunk("ANIM", [0, 0, 0, 0] + le16(0))
        for colour in frames {
            var frame = le24(0) + le24(0) + le24(width - 1) + le24(height - 1) + le24(100)
            frame += [0x02]  // no blending, no disposal
            frame += chunk("VP8L", solidLossless(width: width, height: height, colour: colour))
            body += chunk("ANMF", frame)
        }
        return Data(Array("RIFF".utf8) + le32(body.count) + body)
    }

    /// A VP8L bitstream of one colour: no transforms, no colour cache, and five prefix codes of a
    /// single symbol each (green, red, blue, alpha, distance), so each pixel takes no bits at all.
    private static func solidLossless(width: Int, height: Int, colour: Colour) -> [UInt8] {
        var bits = BitWriter()
        bits.write(width - 1, count: 14)
        bits.write(height - 1, count: 14)
        bits.write(0, count: 1)  // alpha unused
        bits.write(0, count: 3)  // version 0
        bits.write(0, count: 1)  // no transform
        bits.write(0, count: 1)  // no colour cache
        bits.write(0, count: 1)  // no meta prefix codes
        for symbol in [colour.green, colour.red, colour.blue, 255] {
            bits.write(1, count: 1)  // simple code
            bits.write(0, count: 1)  // one symbol
            bits.write(1, count: 1)  // of eight bits
            bits.write(Int(symbol), count: 8)
        }
        bits.write(1, count: 1)  // distance: simple code, one symbol, of one bit: 0
        bits.write(0, count: 1)
        bits.write(0, count: 1)
        bits.write(0, count: 1)
        return [0x2F] + bits.bytes
    }

    private struct BitWriter {
        var bytes: [UInt8] = []
        var used = 0

        /// Appends the `count` low bits of `value`, least significant first.
        mutating func write(_ value: Int, count: Int) {
            for bit in 0..<count {
                if used % 8 == 0 { bytes.append(0) }
                if value >> bit & 1 == 1 { bytes[bytes.count - 1] |= 1 << (used % 8) }
                used += 1
            }
        }
    }

    private static func chunk(_ name: String, _ payload: [UInt8]) -> [UInt8] {
        Array(name.utf8) + le32(payload.count) + payload + (payload.count % 2 == 1 ? [0] : [])
    }

    private static func le16(_ value: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)] }
    private static func le24(_ value: Int) -> [UInt8] { (0..<3).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    private static func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
}
