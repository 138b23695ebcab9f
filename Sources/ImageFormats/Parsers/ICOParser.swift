/// Windows icon: a 6-byte ICONDIR, one 16-byte entry per image, and each image (a BMP without its
/// file header, or a whole PNG) at the offset its entry gives. The size reported is the largest entry's.
package enum ICOParser: ImageFormatParser {
    /// One directory entry.
    private struct Entry {
        var width: Int
        var height: Int
        var byteCount: Int
        var offset: Int
    }

    private static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func readHeader(_ reader: ByteReader, limits: ValidationLimits) throws(ParseFailure) -> ImageInfo {
        let entries = try readDirectory(reader)
        let largest = largestSize(entries.map { ($0.width, $0.height) })
        return ImageInfo(format: .ico, pixelWidth: largest.width, pixelHeight: largest.height, isAnimated: false, frameCount: entries.count)
    }

    static func walkStructure(_ reader: ByteReader, header: ImageInfo, limits: ValidationLimits) throws(ParseFailure) -> ImageInfo {
        let entries = try readDirectory(reader)
        let directoryEnd = 6 + 16 * entries.count
        var ranges: [Range<Int>] = []
        for (index, entry) in entries.enumerated() {
            guard entry.byteCount > 0, entry.offset >= directoryEnd else {
                throw .malformed("entry \(index + 1) declares \(entry.byteCount) bytes at offset \(entry.offset), which overlaps the directory")
            }
            guard entry.byteCount <= reader.end - entry.offset else {
                throw .refused(.truncated(format: .ico, reason: "entry \(index + 1) (\(entry.byteCount) bytes at offset \(entry.offset)) lies beyond the end of the file"))
            }
            ranges.append(entry.offset..<(entry.offset + entry.byteCount))
        }
        // Entries must not share bytes: real icons never do, and checking shared bytes once per
        // entry (up to 65,535 of them) would let a small file make validation slow.
        let sorted = ranges.sorted { $0.lowerBound < $1.lowerBound }
        guard zip(sorted, sorted.dropFirst()).allSatisfy({ $0.upperBound <= $1.lowerBound }) else {
            throw .malformed("two entries share the same image bytes")
        }
        var sizes: [(width: Int, height: Int)] = []
        for (index, range) in ranges.enumerated() {
            let image = Array(reader.bytes[range])
            sizes.append(image.starts(with: pngSignature)
                ? try embeddedPNGSize(image, entry: index + 1, limits: limits)
                : try embeddedBitmapSize(image, entry: index + 1, limits: limits))
        }
        let largest = largestSize(sizes)
        return ImageInfo(format: .ico, pixelWidth: largest.width, pixelHeight: largest.height, isAnimated: false, frameCount: entries.count)
    }

    /// Reads ICONDIR and its entries (a width or height byte of 0 means 256).
    private static func readDirectory(_ reader: ByteReader) throws(ParseFailure) -> [Entry] {
        var reader = reader
        try reader.skip(4)  // Reserved 0 and type 1 (icon), already matched by sniffing.
        let count = Int(try reader.readUInt16(.littleEndian))
        guard count > 0 else { throw .malformed("the icon directory has no entries") }
        var entries: [Entry] = []
        for _ in 0..<count {
            let width = Int(try reader.readUInt8()), height = Int(try reader.readUInt8())
            try reader.skip(6)  // Palette size, reserved, planes, bit count.
            let byteCount = try reader.readInt(byteCount: 4, .littleEndian)
            let offset = try reader.readInt(byteCount: 4, .littleEndian)
            entries.append(Entry(width: width == 0 ? 256 : width, height: height == 0 ? 256 : height, byteCount: byteCount, offset: offset))
        }
        return entries
    }

    /// Validates a PNG entry completely (CRCs included) and returns its size.
    private static func embeddedPNGSize(_ image: [UInt8], entry: Int, limits: ValidationLimits) throws(ParseFailure) -> (width: Int, height: Int) {
        do {
            let header = try PNGParser.readHeader(ByteReader(image), limits: limits)
            let info = try PNGParser.walkStructure(ByteReader(image), header: header, limits: limits)
            return (info.pixelWidth, info.pixelHeight)
        } catch {
            switch error {
            case .needMoreBytes: throw .malformed("the PNG of entry \(entry) is cut short")
            case let .malformed(reason): throw .malformed("the PNG of entry \(entry) is broken: \(reason)")
            case let .refused(.tooManyPixels(_, width, height, limit)):
                throw .refused(.tooManyPixels(format: .ico, width: width, height: height, limit: limit))
            case let .refused(refusal): throw .malformed("the PNG of entry \(entry) is broken: \(refusal.detail)")
            }
        }
    }

    /// Checks a bitmap entry's DIB header and that its colour (XOR) pixels fit, and returns its size.
    private static func embeddedBitmapSize(_ image: [UInt8], entry: Int, limits: ValidationLimits) throws(ParseFailure) -> (width: Int, height: Int) {
        var reader = ByteReader(image)
        do throws(ParseFailure) {
            let headerSize = try reader.readInt(byteCount: 4, .littleEndian)
            guard headerSize >= 40 else { throw .malformed("the bitmap of entry \(entry) has a DIB header of \(headerSize) bytes") }
            let width = Int(Int32(bitPattern: try reader.readUInt32(.littleEndian)))
            // The height counts the colour rows and the transparency mask rows together.
            let doubledHeight = Int(Int32(bitPattern: try reader.readUInt32(.littleEndian)))
            try reader.skip(2)
            let bitsPerPixel = Int(try reader.readUInt16(.littleEndian))
            let height = doubledHeight / 2
            guard width > 0, height > 0, [1, 4, 8, 16, 24, 32].contains(bitsPerPixel) else {
                throw .malformed("the bitmap of entry \(entry) is \(width)x\(height) at \(bitsPerPixel) bits per pixel")
            }
            try limits.checkPixels(.ico, width: width, height: height)
            let rowBytes = try Checked.add(try Checked.multiply(width, bitsPerPixel), 31) / 32 * 4
            guard try Checked.add(headerSize, try Checked.multiply(rowBytes, height)) <= image.count else {
                throw .refused(.truncated(format: .ico, reason: "the bitmap of entry \(entry) needs more bytes than its entry holds"))
            }
            return (width, height)
        } catch .needMoreBytes {
            throw .malformed("the bitmap of entry \(entry) is shorter than its header")
        }
    }

    /// The size with the most pixels (the first one on a tie).
    private static func largestSize(_ sizes: [(width: Int, height: Int)]) -> (width: Int, height: Int) {
        sizes[largestIndex(sizes)]
    }

    /// The index of the first of the largest sizes (by area).
    private static func largestIndex(_ sizes: [(width: Int, height: Int)]) -> Int {
        sizes.indices.reduce(0) { best, index in
            sizes[index].width * sizes[index].height > sizes[best].width * sizes[best].height ? index : best
        }
    }

    /// The index of the largest entry its directory declares, for a decoder that loads one entry
    /// (the size ``readHeader(_:limits:)`` reports is that entry's); nil when `data` is no icon.
    package static func largestEntryIndex(_ data: [UInt8]) -> Int? {
        guard let entries = try? readDirectory(ByteReader(data)) else { return nil }
        return largestIndex(entries.map { ($0.width, $0.height) })
    }
}
