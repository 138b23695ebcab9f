/// TIFF: an 8-byte header (byte order, 42, the first IFD's offset) and a chain of image file
/// directories (IFDs), each a list of 12-byte tag entries whose values sit inline or at an offset.
enum TIFFParser: ImageFormatParser {
    /// One 12-byte directory entry.
    private struct Entry {
        var tag: UInt16
        var type: UInt16
        var count: Int
        /// Where the entry's 4-byte value-or-offset field sits, from the start of the file.
        var valueFieldOffset: Int
    }

    /// One image file directory.
    private struct Directory {
        var entries: [UInt16: Entry]
        var nextOffset: Int
    }

    /// A budget of entries and array values a walk may read, so that crafted overlapping
    /// directories cannot make validation slow.
    private struct WorkBudget {
        var remaining = 1_000_000
        mutating func spend(_ units: Int) throws(ParseFailure) {
            remaining -= units
            guard remaining >= 0 else { throw .malformed("the directories hold more entries than any real file") }
        }
    }

    private static let imageWidth: UInt16 = 256, imageLength: UInt16 = 257
    private static let bitsPerSample: UInt16 = 258, samplesPerPixel: UInt16 = 277
    private static let stripOffsets: UInt16 = 273, stripByteCounts: UInt16 = 279
    private static let tileOffsets: UInt16 = 324, tileByteCounts: UInt16 = 325
    private static let maxPageCount = 1024
    /// Bytes per value of each field type (TIFF 6.0 §2 plus the IFD type of TIFF Technical Note 1).
    private static let typeSizes: [UInt16: Int] = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4]

    static func readHeader(_ reader: ByteReader, limits: ValidationLimits) throws(ParseFailure) -> ImageInfo {
        let (order, firstOffset) = try readFileHeader(reader)
        var budget = WorkBudget()
        let directory = try readDirectory(reader, at: firstOffset, order, budget: &budget)
        let size = try dimensions(of: directory, reader, order, page: 1)
        try limits.checkPixels(.tiff, width: size.width, height: size.height)
        return ImageInfo(format: .tiff, pixelWidth: size.width, pixelHeight: size.height)
    }

    static func walkStructure(_ reader: ByteReader, header: ImageInfo, limits: ValidationLimits) throws(ParseFailure) -> ImageInfo {
        let (order, firstOffset) = try readFileHeader(reader)
        var budget = WorkBudget()
        var visited: Set<Int> = []
        var offset = firstOffset, pageCount = 0
        var bytesPerPixel: Int?
        while offset != 0 {
            guard visited.insert(offset).inserted else { throw .malformed("the IFD chain loops back to offset \(offset)") }
            guard pageCount < maxPageCount else { throw .malformed("more than \(maxPageCount) pages") }
            guard offset < reader.end else {
                throw .refused(.truncated(format: .tiff, reason: "IFD \(pageCount + 1) at offset \(offset) lies beyond the end of the file"))
            }
            let directory = try readDirectory(reader, at: offset, order, budget: &budget)
            pageCount += 1
            let size = try dimensions(of: directory, reader, order, page: pageCount)
            try limits.checkPixels(.tiff, width: size.width, height: size.height)
            try checkValuesInFile(directory, reader, order, page: pageCount)
            try checkImageData(directory, reader, order, page: pageCount, budget: &budget)
            if pageCount == 1 { bytesPerPixel = decodedBytesPerPixel(directory, reader, order) }
            offset = directory.nextOffset
        }
        return ImageInfo(format: .tiff, pixelWidth: header.pixelWidth, pixelHeight: header.pixelHeight,
                         isAnimated: false, frameCount: pageCount, bytesPerPixel: bytesPerPixel)
    }

    /// Reads the byte order, the magic number 42 and the first IFD's offset.
    private static func readFileHeader(_ reader: ByteReader) throws(ParseFailure) -> (ByteReader.ByteOrder, Int) {
        var reader = reader
        let order: ByteReader.ByteOrder = try reader.readUInt8() == 0x49 ? .littleEndian : .bigEndian
        try reader.skip(3)  // The second order byte and 42, already matched by sniffing.
        let firstOffset = try reader.readInt(byteCount: 4, order)
        guard firstOffset >= 8 else { throw .malformed("the first IFD offset \(firstOffset) points into the file header") }
        return (order, firstOffset)
    }

    /// Reads the directory at `offset`: its entries and the next directory's offset (0 at the end).
    private static func readDirectory(_ reader: ByteReader, at offset: Int, _ order: ByteReader.ByteOrder,
                                      budget: inout WorkBudget) throws(ParseFailure) -> Directory {
        var reader = reader
        try reader.seek(toRelative: offset)
        let count = Int(try reader.readUInt16(order))
        guard count > 0 else { throw .malformed("the IFD at offset \(offset) has no entries") }
        try budget.spend(count)
        try reader.require(count * 12 + 4)
        var entries: [UInt16: Entry] = [:]
        for _ in 0..<count {
            let tag = try reader.readUInt16(order)
            let type = try reader.readUInt16(order)
            let valueCount = try reader.readInt(byteCount: 4, order)
            entries[tag] = Entry(tag: tag, type: type, count: valueCount, valueFieldOffset: reader.relativeOffset)
            try reader.skip(4)
        }
        return Directory(entries: entries, nextOffset: try reader.readInt(byteCount: 4, order))
    }

    /// The ImageWidth and ImageLength of a page.
    private static func dimensions(of directory: Directory, _ reader: ByteReader, _ order: ByteReader.ByteOrder,
                                   page: Int) throws(ParseFailure) -> (width: Int, height: Int) {
        guard let widthEntry = directory.entries[imageWidth], let lengthEntry = directory.entries[imageLength] else {
            throw .malformed("page \(page) has no ImageWidth or ImageLength tag")
        }
        let width = try firstValue(of: widthEntry, reader, order)
        let height = try firstValue(of: lengthEntry, reader, order)
        guard width > 0, height > 0 else { throw .malformed("page \(page) is \(width)x\(height)") }
        return (width, height)
    }

    /// The bytes a decoded pixel of a page takes: SamplesPerPixel × the bytes of its first
    /// BitsPerSample (TIFF's defaults, 1 and 1, when absent); nil when they are not integers.
    private static func decodedBytesPerPixel(_ directory: Directory, _ reader: ByteReader, _ order: ByteReader.ByteOrder) -> Int? {
        guard let samples = directory.entries[samplesPerPixel].map({ try? firstValue(of: $0, reader, order) }) ?? 1,
            let bits = directory.entries[bitsPerSample].map({ try? firstValue(of: $0, reader, order) }) ?? 1,
            (1...64).contains(samples), (1...64).contains(bits)
        else { return nil }
        return samples * ((bits + 7) / 8)
    }

    /// The first value of a SHORT or LONG entry.
    private static func firstValue(of entry: Entry, _ reader: ByteReader, _ order: ByteReader.ByteOrder) throws(ParseFailure) -> Int {
        guard entry.count >= 1, entry.type == 3 || entry.type == 4 else {
            throw .malformed("tag \(entry.tag) has type \(entry.type) and \(entry.count) values where one integer is needed")
        }
        var reader = reader
        try reader.seek(toRelative: entry.valueFieldOffset)
        return entry.type == 3 ? Int(try reader.readUInt16(order)) : try reader.readInt(byteCount: 4, order)
    }

    /// Checks every value stored out of line lies within the file.
    private static func checkValuesInFile(_ directory: Directory, _ reader: ByteReader, _ order: ByteReader.ByteOrder, page: Int) throws(ParseFailure) {
        for entry in directory.entries.values {
            guard let size = typeSizes[entry.type] else { continue }  // Readers must skip unknown types.
            let byteCount = try Checked.multiply(entry.count, size)
            guard byteCount > 4 else { continue }
            var field = reader
            try field.seek(toRelative: entry.valueFieldOffset)
            let offset = try field.readInt(byteCount: 4, order)
            guard try Checked.add(offset, byteCount) <= reader.end else {
                throw .refused(.truncated(format: .tiff, reason: "the value of tag \(entry.tag) on page \(page) lies beyond the end of the file"))
            }
        }
    }

    /// Checks each strip or tile of a page lies within the file.
    private static func checkImageData(_ directory: Directory, _ reader: ByteReader, _ order: ByteReader.ByteOrder,
                                       page: Int, budget: inout WorkBudget) throws(ParseFailure) {
        let isTiled = directory.entries[tileOffsets] != nil
        guard let offsetsEntry = directory.entries[isTiled ? tileOffsets : stripOffsets] else {
            throw .malformed("page \(page) has neither StripOffsets nor TileOffsets")
        }
        let offsets = try values(of: offsetsEntry, reader, order, budget: &budget)
        // Old uncompressed files may omit the byte counts; then only the offsets can be checked.
        let byteCounts = try directory.entries[isTiled ? tileByteCounts : stripByteCounts]
            .map { entry throws(ParseFailure) in try values(of: entry, reader, order, budget: &budget) }
        if let byteCounts, byteCounts.count != offsets.count {
            throw .malformed("page \(page) has \(offsets.count) strip offsets but \(byteCounts.count) byte counts")
        }
        for (index, offset) in offsets.enumerated() {
            let end = try Checked.add(offset, byteCounts?[index] ?? 0)
            guard end <= reader.end else {
                throw .refused(.truncated(format: .tiff, reason: "\(isTiled ? "tile" : "strip") \(index + 1) of page \(page) lies beyond the end of the file"))
            }
        }
    }

    /// All values of a SHORT or LONG entry, inline or at its offset.
    private static func values(of entry: Entry, _ reader: ByteReader, _ order: ByteReader.ByteOrder,
                               budget: inout WorkBudget) throws(ParseFailure) -> [Int] {
        guard entry.type == 3 || entry.type == 4 else { throw .malformed("tag \(entry.tag) has type \(entry.type) where integers are needed") }
        let size = entry.type == 3 ? 2 : 4
        var reader = reader
        try reader.seek(toRelative: entry.valueFieldOffset)
        if try Checked.multiply(entry.count, size) > 4 {
            try reader.seek(toRelative: try reader.readInt(byteCount: 4, order))
        }
        try reader.require(try Checked.multiply(entry.count, size))
        try budget.spend(entry.count)
        var result: [Int] = []
        result.reserveCapacity(entry.count)
        for _ in 0..<entry.count {
            result.append(try reader.readInt(byteCount: size, order))
        }
        return result
    }
}
