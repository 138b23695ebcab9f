/// A DEFLATE (RFC 1951) decoder with an output limit, so a small SVGZ cannot expand without bound.
///
/// The output produced before a failure stays in ``output``: sniffing a download prefix only needs
/// the first few hundred bytes of an SVG.
struct Inflater {
    private let input: [UInt8]
    private let inputEnd: Int
    /// The index of the next input byte not yet loaded into the bit buffer.
    private(set) var inputOffset: Int
    private var bitBuffer: UInt32 = 0
    private var bitCount = 0
    /// The most bytes ``run()`` will produce.
    let outputLimit: Int
    /// The bytes decompressed so far.
    private(set) var output: [UInt8] = []

    /// A decoder of the DEFLATE stream in `input[start..<end]`.
    init(input: [UInt8], start: Int, end: Int, outputLimit: Int) {
        self.input = input
        inputOffset = start
        inputEnd = end
        self.outputLimit = outputLimit
    }

    /// Decodes blocks until the final one; afterwards ``inputOffset`` is the first byte after the stream.
    mutating func run() throws(InflateFailure) {
        var isLastBlock = false
        while !isLastBlock {
            isLastBlock = try bits(1) == 1
            switch try bits(2) {
            case 0: try storedBlock()
            case 1: try compressedBlock(literals: Self.fixedCodes.literals, distances: Self.fixedCodes.distances)
            case 2: try dynamicBlock()
            default: throw .malformed("a block has the reserved type 3")
            }
        }
        // Whole bytes loaded into the bit buffer but not used belong to what follows the stream.
        inputOffset -= bitCount / 8
        bitBuffer = 0
        bitCount = 0
    }

    private mutating func bits(_ count: Int) throws(InflateFailure) -> Int {
        var value = bitBuffer
        while bitCount < count {
            guard inputOffset < inputEnd else { throw .needMoreInput }
            value |= UInt32(input[inputOffset]) << UInt32(bitCount)
            inputOffset += 1
            bitCount += 8
        }
        bitBuffer = value >> UInt32(count)
        bitCount -= count
        return Int(value & ((1 << UInt32(count)) - 1))
    }

    private mutating func append(_ byte: UInt8) throws(InflateFailure) {
        guard output.count < outputLimit else { throw .outputLimitReached }
        output.append(byte)
    }

    private mutating func storedBlock() throws(InflateFailure) {
        bitBuffer = 0
        bitCount = 0
        guard inputEnd - inputOffset >= 4 else { throw .needMoreInput }
        let length = Int(input[inputOffset]) | Int(input[inputOffset + 1]) << 8
        let complement = Int(input[inputOffset + 2]) | Int(input[inputOffset + 3]) << 8
        inputOffset += 4
        guard length == ~complement & 0xFFFF else { throw .malformed("a stored block's length check fails") }
        for _ in 0..<length {
            guard inputOffset < inputEnd else { throw .needMoreInput }
            try append(input[inputOffset])
            inputOffset += 1
        }
    }

    private static let lengthBase = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    private static let lengthExtraBits = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    private static let distanceBase = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
    private static let distanceExtraBits = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]

    private static let fixedCodes: (literals: HuffmanCode, distances: HuffmanCode) = {
        var lengths = Array(repeating: 8, count: 288)
        for symbol in 144..<256 { lengths[symbol] = 9 }
        for symbol in 256..<280 { lengths[symbol] = 7 }
        return (HuffmanCode(lengths: lengths[...]), HuffmanCode(lengths: Array(repeating: 5, count: 30)[...]))
    }()

    private mutating func decode(_ code: HuffmanCode) throws(InflateFailure) -> Int {
        try code.decode { () throws(InflateFailure) -> Int in try bits(1) }
    }

    private mutating func compressedBlock(literals: HuffmanCode, distances: HuffmanCode) throws(InflateFailure) {
        while true {
            let symbol = try decode(literals)
            if symbol < 256 {
                try append(UInt8(symbol))
                continue
            }
            if symbol == 256 { return }
            let lengthIndex = symbol - 257
            guard lengthIndex < Self.lengthBase.count else { throw .malformed("a length code is out of range") }
            let length = Self.lengthBase[lengthIndex] + (try bits(Self.lengthExtraBits[lengthIndex]))
            let distanceIndex = try decode(distances)
            guard distanceIndex < Self.distanceBase.count else { throw .malformed("a distance code is out of range") }
            let distance = Self.distanceBase[distanceIndex] + (try bits(Self.distanceExtraBits[distanceIndex]))
            guard distance <= output.count else { throw .malformed("a back-reference points before the start of the data") }
            for _ in 0..<length {
                try append(output[output.count - distance])
            }
        }
    }

    private static let codeLengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    private mutating func dynamicBlock() throws(InflateFailure) {
        let literalCount = try bits(5) + 257
        let distanceCount = try bits(5) + 1
        let codeLengthCount = try bits(4) + 4
        guard literalCount <= 286, distanceCount <= 30 else { throw .malformed("a dynamic block declares too many codes") }

        var lengths = Array(repeating: 0, count: 19)
        for index in 0..<codeLengthCount {
            lengths[Self.codeLengthOrder[index]] = try bits(3)
        }
        let lengthCode = HuffmanCode(lengths: lengths[...])
        guard lengthCode.unusedCodes == 0 else { throw .malformed("the code-length code is incomplete") }

        let total = literalCount + distanceCount
        lengths = Array(repeating: 0, count: total)
        var index = 0
        while index < total {
            var symbol = try decode(lengthCode)
            if symbol < 16 {
                lengths[index] = symbol
                index += 1
                continue
            }
            var repeated = 0
            switch symbol {
            case 16:
                guard index > 0 else { throw .malformed("a length repeat has nothing to repeat") }
                repeated = lengths[index - 1]
                symbol = 3 + (try bits(2))
            case 17: symbol = 3 + (try bits(3))
            default: symbol = 11 + (try bits(7))
            }
            guard index + symbol <= total else { throw .malformed("code lengths overrun the table") }
            for _ in 0..<symbol {
                lengths[index] = repeated
                index += 1
            }
        }
        guard lengths[256] != 0 else { throw .malformed("a block has no end-of-block code") }

        let literals = HuffmanCode(lengths: lengths[0..<literalCount])
        // An incomplete code is only allowed when it has a single symbol (RFC 1951 §3.2.7).
        guard literals.unusedCodes == 0 || (literals.unusedCodes > 0 && literals.codedSymbolCount == 1) else {
            throw .malformed("the literal/length code is over-subscribed or incomplete")
        }
        let distances = HuffmanCode(lengths: lengths[literalCount..<total])
        guard distances.unusedCodes == 0 || (distances.unusedCodes > 0 && distances.codedSymbolCount <= 1) else {
            throw .malformed("the distance code is over-subscribed or incomplete")
        }
        try compressedBlock(literals: literals, distances: distances)
    }
}
