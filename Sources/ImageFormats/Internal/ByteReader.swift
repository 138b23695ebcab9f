/// A bounds-checked cursor over a byte array, so no parser ever indexes past the data or traps on overflow.
///
/// A reader covers a window of the array. The outermost window ends where the available data ends:
/// reading past it means more bytes are needed (a download prefix) or the file is cut short. A window
/// made by ``readWindow(_:)`` ends where the file *declares* a box or chunk ends: reading past that
/// is a malformed file, whatever follows in the data.
struct ByteReader {
    /// How a multi-byte integer is stored.
    enum ByteOrder: Sendable {
        case bigEndian
        case littleEndian
    }

    /// The whole data the reader was made from (windows share it).
    let bytes: [UInt8]
    /// The first index of this reader's window.
    let start: Int
    /// One past the last index of this reader's window.
    let end: Int
    /// Whether `end` is the end of the available data rather than a length the file declares.
    let endIsDataEnd: Bool
    /// The index of the next byte to read, within `start...end`.
    private(set) var offset: Int

    /// A reader over all of `bytes`.
    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        start = 0
        end = bytes.count
        endIsDataEnd = true
        offset = 0
    }

    private init(bytes: [UInt8], start: Int, end: Int, endIsDataEnd: Bool) {
        self.bytes = bytes
        self.start = start
        self.end = end
        self.endIsDataEnd = endIsDataEnd
        offset = start
    }

    /// How many bytes are left in the window.
    var remaining: Int { end - offset }

    /// Whether the window has been read to its end.
    var isAtEnd: Bool { offset >= end }

    /// Where the cursor is, counted from the start of the window.
    var relativeOffset: Int { offset - start }

    /// The failure for reading `count` bytes when fewer remain.
    private var overrun: ParseFailure {
        endIsDataEnd ? .needMoreBytes : .malformed("a field runs past the end of the block that holds it")
    }

    /// Throws unless `count` more bytes are available.
    func require(_ count: Int) throws(ParseFailure) {
        // Comparing against `remaining` (never negative) cannot overflow, unlike `offset + count`.
        guard count >= 0, count <= remaining else { throw overrun }
    }

    /// Whether `count` more bytes are available.
    func has(_ count: Int) -> Bool { count >= 0 && count <= remaining }

    /// Reads one byte.
    mutating func readUInt8() throws(ParseFailure) -> UInt8 {
        try require(1)
        defer { offset += 1 }
        return bytes[offset]
    }

    /// Reads a 16-bit unsigned integer.
    mutating func readUInt16(_ order: ByteOrder) throws(ParseFailure) -> UInt16 {
        UInt16(try readUnsigned(byteCount: 2, order))
    }

    /// Reads a 24-bit unsigned integer (WebP sizes, ipma flags).
    mutating func readUInt24(_ order: ByteOrder) throws(ParseFailure) -> UInt32 {
        UInt32(try readUnsigned(byteCount: 3, order))
    }

    /// Reads a 32-bit unsigned integer.
    mutating func readUInt32(_ order: ByteOrder) throws(ParseFailure) -> UInt32 {
        UInt32(try readUnsigned(byteCount: 4, order))
    }

    /// Reads an unsigned integer of 0 to 8 bytes (field widths some formats choose per file).
    mutating func readUnsigned(byteCount: Int, _ order: ByteOrder) throws(ParseFailure) -> UInt64 {
        precondition((0...8).contains(byteCount), "integer width out of range")
        try require(byteCount)
        var value: UInt64 = 0
        for index in 0..<byteCount {
            let byte = UInt64(bytes[offset + index])
            switch order {
            case .bigEndian: value = value << 8 | byte
            case .littleEndian: value |= byte << (8 * UInt64(index))
            }
        }
        offset += byteCount
        return value
    }

    /// Reads an unsigned integer of `byteCount` bytes as an `Int`, refusing values an `Int` cannot
    /// hold (any 64-bit value above 2^63 - 1, or a 32-bit one above 2^31 - 1 on 32-bit platforms).
    mutating func readInt(byteCount: Int, _ order: ByteOrder) throws(ParseFailure) -> Int {
        let value = try readUnsigned(byteCount: byteCount, order)
        guard let integer = Int(exactly: value) else { throw .malformed("a field holds \(value), beyond any real file") }
        return integer
    }

    /// Reads four bytes as a FourCC such as `IHDR` or `ftyp` (non-printable bytes shown as `?`).
    mutating func readFourCC() throws(ParseFailure) -> String {
        FourCC.text(try readBytes(4))
    }

    /// Reads `count` bytes without copying them.
    mutating func readBytes(_ count: Int) throws(ParseFailure) -> ArraySlice<UInt8> {
        try require(count)
        defer { offset += count }
        return bytes[offset..<(offset + count)]
    }

    /// Moves past `count` bytes.
    mutating func skip(_ count: Int) throws(ParseFailure) {
        try require(count)
        offset += count
    }

    /// Moves the cursor to `position`, counted from the start of the window.
    mutating func seek(toRelative position: Int) throws(ParseFailure) {
        guard position >= 0 else { throw .malformed("an offset points before the start of the file") }
        guard position <= end - start else { throw overrun }
        offset = start + position
    }

    /// The byte `distance` ahead of the cursor, without moving it.
    func peekUInt8(ahead distance: Int = 0) throws(ParseFailure) -> UInt8 {
        try require(distance + 1)
        return bytes[offset + distance]
    }

    /// A reader over the next `length` bytes, which the file declares as one block; moves past them.
    mutating func readWindow(_ length: Int) throws(ParseFailure) -> ByteReader {
        try require(length)
        let window = ByteReader(bytes: bytes, start: offset, end: offset + length, endIsDataEnd: false)
        offset += length
        return window
    }
}
