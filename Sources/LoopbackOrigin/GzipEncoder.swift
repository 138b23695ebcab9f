import Foundation

/// Writes gzip members without any library, for an origin to serve as `Content-Encoding: gzip`.
public enum GzipEncoder {
    /// A gzip member (RFC 1952) that inflates to `count` zero bytes, about 1/1,300 of their size:
    /// a decompression bomb small enough to arrive in a few packets, for tests of body limits.
    ///
    /// One fixed-Huffman deflate block (RFC 1951 §3.2.6): a literal zero, then copies of 258 bytes
    /// at distance 1 (13 bits each), then literal zeros for the remainder. Foundation on Linux has no
    /// compressor, and this shape needs none.
    public static func zeros(count: Int) -> Data {
        var bits = BitWriter()
        bits.write(1, count: 1)  // BFINAL
        bits.write(1, count: 2)  // BTYPE 01: fixed Huffman codes
        var remaining = count
        if remaining > 0 {
            bits.writeCode(0x30, length: 8)  // literal 0
            remaining -= 1
        }
        while remaining >= 258 {
            bits.writeCode(0xC5, length: 8)  // length code 285: 258 bytes, no extra bits
            bits.writeCode(0, length: 5)  // distance code 0: distance 1
            remaining -= 258
        }
        for _ in 0..<remaining { bits.writeCode(0x30, length: 8) }
        bits.writeCode(0, length: 7)  // end of block (256)
        var member: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF]
        member += bits.finished
        var crc = UInt32.max
        for _ in 0..<count { crc = PNGEncoder.crcTable[Int(crc & 0xFF)] ^ (crc >> 8) }
        member += littleEndian(~crc) + littleEndian(UInt32(truncatingIfNeeded: count))
        return Data(member)
    }

    private static func littleEndian(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    /// Deflate's bit order: fields least significant bit first, Huffman codes most significant first.
    private struct BitWriter {
        var bytes: [UInt8] = []
        private var pending: UInt32 = 0
        private var pendingCount = 0

        mutating func write(_ value: UInt32, count: Int) {
            for index in 0..<count { push(value >> UInt32(index) & 1) }
        }

        mutating func writeCode(_ code: UInt32, length: Int) {
            for index in stride(from: length - 1, through: 0, by: -1) { push(code >> UInt32(index) & 1) }
        }

        private mutating func push(_ bit: UInt32) {
            pending |= bit << UInt32(pendingCount)
            pendingCount += 1
            if pendingCount == 8 {
                bytes.append(UInt8(pending))
                pending = 0
                pendingCount = 0
            }
        }

        /// The bytes, the last one padded with zero bits.
        var finished: [UInt8] { pendingCount == 0 ? bytes : bytes + [UInt8(pending)] }
    }
}
