/// A canonical Huffman code as DEFLATE defines it, stored as counts per length and symbols in code order.
///
/// This is the compact form of zlib's `puff.c`: decoding walks one bit at a time, which is slow
/// for big streams but needs no tables that a crafted stream could make large.
struct HuffmanCode: Sendable {
    /// The longest code DEFLATE allows.
    static let maxBits = 15

    /// How many symbols have a code of each length (index 0 counts unused symbols).
    private(set) var countPerLength: [Int]
    /// The symbols ordered by code.
    private(set) var symbols: [Int]
    /// Codes left unused: 0 for a complete code, above 0 for an incomplete one, below 0 for an over-subscribed one.
    private(set) var unusedCodes: Int

    /// Builds the code from each symbol's code length (0 for symbols without a code).
    init(lengths: ArraySlice<Int>) {
        countPerLength = Array(repeating: 0, count: Self.maxBits + 1)
        symbols = Array(repeating: 0, count: lengths.count)
        for length in lengths { countPerLength[length] += 1 }
        unusedCodes = 0
        guard countPerLength[0] != lengths.count else { return }
        var left = 1
        for length in 1...Self.maxBits {
            left = left << 1 - countPerLength[length]
            if left < 0 {
                unusedCodes = left
                return
            }
        }
        unusedCodes = left
        var offsets = Array(repeating: 0, count: Self.maxBits + 1)
        for length in 1..<Self.maxBits {
            offsets[length + 1] = offsets[length] + countPerLength[length]
        }
        for (symbol, length) in zip(0..., lengths) where length != 0 {
            symbols[offsets[length]] = symbol
            offsets[length] += 1
        }
    }

    /// The number of symbols that have a code.
    var codedSymbolCount: Int { symbols.count - countPerLength[0] }

    /// Decodes one symbol, reading bits one at a time from `nextBit`.
    func decode(_ nextBit: () throws(InflateFailure) -> Int) throws(InflateFailure) -> Int {
        var code = 0, first = 0, index = 0
        for length in 1...Self.maxBits {
            code |= try nextBit()
            let count = countPerLength[length]
            if code - count < first {
                return symbols[index + (code - first)]
            }
            index += count
            first = (first + count) << 1
            code <<= 1
        }
        throw .malformed("a Huffman code matches no symbol")
    }
}
