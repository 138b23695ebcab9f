/// The checks on a PNG's compressed image data that only inflating it can make: the zlib wrapper,
/// the DEFLATE stream, its Adler-32, the inflated size the header implies, and each row's filter
/// type. A decoder that stops at the last row never reads the checksum after it, and one that is
/// lenient fills a damaged row with whatever it got: refused here instead.
struct PNGImageData {
    let width: Int
    let height: Int
    let bitsPerPixel: Int
    let isInterlaced: Bool

    /// Image data larger than this when inflated is not checked (its decoder checks as it goes);
    /// the check holds the inflated bytes, and the pixels of such an image need more anyway.
    static let checkedByteLimit = 64 << 20

    /// The Adam7 passes: starting column and row, column and row steps.
    private static let passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]

    /// Each pass's rows and bytes per row (filter byte included); one pass when not interlaced.
    private var rowLayout: [(rows: Int, rowBytes: Int)] {
        func rowBytes(_ columns: Int) -> Int { 1 + (columns * bitsPerPixel + 7) / 8 }
        guard isInterlaced else { return [(height, rowBytes(width))] }
        return Self.passes.compactMap { column, row, columnStep, rowStep in
            let columns = width > column ? (width - column + columnStep - 1) / columnStep : 0
            let rows = height > row ? (height - row + rowStep - 1) / rowStep : 0
            return columns > 0 && rows > 0 ? (rows, rowBytes(columns)) : nil
        }
    }

    /// The inflated size the header implies.
    var expectedByteCount: Int { rowLayout.reduce(0) { $0 + $1.rows * $1.rowBytes } }

    /// Checks the concatenated IDAT payloads `data`.
    func check(_ data: [UInt8]) throws(ParseFailure) {
        let expected = expectedByteCount
        guard expected <= Self.checkedByteLimit else { return }
        guard data.count >= 6 else { throw .malformed("the image data is \(data.count) bytes, too short for a zlib stream") }
        let (method, flags) = (data[0], data[1])
        guard method & 0x0F == 8, method >> 4 <= 7, (Int(method) << 8 | Int(flags)) % 31 == 0, flags & 0x20 == 0 else {
            throw .malformed("the image data does not start with a zlib header")
        }
        var inflater = Inflater(input: data, start: 2, end: data.count, outputLimit: expected)
        do {
            try inflater.run()
        } catch {
            switch error {
            case .outputLimitReached:
                throw .malformed("the image data inflates to more than the \(expected) bytes its header implies")
            case .needMoreInput:
                throw .malformed("the image data's zlib stream ends early, after \(inflater.output.count) of \(expected) bytes")
            case let .malformed(reason):
                throw .malformed("the image data's zlib stream is corrupt: \(reason)")
            }
        }
        guard inflater.output.count == expected else {
            throw .malformed("the image data inflates to \(inflater.output.count) bytes, not the \(expected) its header implies")
        }
        let trailer = inflater.inputOffset
        guard data.count - trailer >= 4 else { throw .malformed("the image data's zlib stream has no Adler-32 checksum") }
        let stored = data[trailer..<(trailer + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard stored == Self.adler32(inflater.output) else { throw .malformed("the Adler-32 of the image data does not match") }
        try checkFilterTypes(inflater.output)
    }

    /// Every row starts with a filter type of 0 to 4.
    private func checkFilterTypes(_ inflated: [UInt8]) throws(ParseFailure) {
        var offset = 0
        for (rows, rowBytes) in rowLayout {
            for _ in 0..<rows {
                guard inflated[offset] <= 4 else { throw .malformed("a row of image data has the unknown filter type \(inflated[offset])") }
                offset += rowBytes
            }
        }
    }

    /// Adler-32 (RFC 1950), summing in blocks short enough that the sums cannot overflow.
    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        var index = 0
        while index < bytes.count {
            let end = min(index + 5552, bytes.count)
            while index < end {
                a &+= UInt32(bytes[index])
                b &+= a
                index += 1
            }
            a %= 65521
            b %= 65521
        }
        return b << 16 | a
    }
}
