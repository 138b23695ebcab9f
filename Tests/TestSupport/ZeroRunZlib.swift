/// A zlib stream of nothing but zero bytes, written as DEFLATE back-references (length 258,
/// distance 1) with the fixed Huffman codes: about 600 times smaller than what it inflates to, the
/// shape of a decompression bomb, made without any compression library.
public enum ZeroRunZlib {
    /// The zlib stream (header, one fixed-Huffman block, Adler-32) that inflates to `count` zeros.
    public static func stream(zeroCount count: Int) -> [UInt8] {
        var writer = BitWriter()
        writer.bytes = [0x78, 0x01]
        writer.write(1, count: 1)  // The final block.
        writer.write(1, count: 2)  // Fixed Huffman codes.
        var written = 0
        if count > 0 {
            writer.writeCode(0x30, length: 8)  // The literal 0.
            written = 1
        }
        // Length 258 (symbol 285, code 0xC5 in 8 bits) then distance 1 (code 0 in 5 bits), written
        // once as their 13 bits in stream order.
        var match = BitWriter()
        match.writeCode(0xC5, length: 8)
        match.writeCode(0, length: 5)
        let matchBits = match.pending
        while count - written >= 258 {
            writer.write(matchBits, count: 13)
            written += 258
        }
        while written < count {
            writer.writeCode(0x30, length: 8)
            written += 1
        }
        writer.writeCode(0, length: 7)  // End of block (symbol 256).
        writer.flush()
        // Adler-32 of zeros: the first sum stays 1, the second adds 1 per byte.
        let adler = UInt32(count % 65_521) << 16 | 1
        return writer.bytes + (0..<4).map { UInt8(truncatingIfNeeded: adler >> (24 - 8 * $0)) }
    }

    private struct BitWriter {
        var bytes: [UInt8] = []
        private var buffer: UInt64 = 0
        private var bitCount = 0

        /// Every bit written so far as one number, first bit lowest: for a short run to write again.
        var pending: UInt64 { bytes.enumerated().reduce(buffer << UInt64(8 * bytes.count)) { $0 | UInt64($1.element) << UInt64(8 * $1.offset) } }

        /// Writes the low `count` bits of `value`, least significant first (DEFLATE's order for
        /// everything but Huffman codes).
        mutating func write(_ value: UInt64, count: Int) {
            buffer |= value << UInt64(bitCount)
            bitCount += count
            while bitCount >= 8 {
                bytes.append(UInt8(truncatingIfNeeded: buffer))
                buffer >>= 8
                bitCount -= 8
            }
        }

        /// Writes a Huffman code, whose bits DEFLATE packs most significant first.
        mutating func writeCode(_ code: UInt64, length: Int) {
            var reversed: UInt64 = 0
            for bit in 0..<length where code >> UInt64(bit) & 1 == 1 { reversed |= 1 << UInt64(length - 1 - bit) }
            write(reversed, count: length)
        }

        mutating func flush() {
            if bitCount > 0 { write(0, count: 8 - bitCount) }
        }
    }
}
