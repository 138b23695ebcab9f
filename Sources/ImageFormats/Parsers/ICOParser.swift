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

    /// What one entry holds.
    package enum Image: Sendable, Equatable {
        /// A whole PNG file: these bytes of the icon.
        case png(Range<Int>)
        /// A bitmap without its file header, and its transparency mask.
        case bitmap(BitmapLayout)
    }

    /// An entry's image and the size it has (which its directory entry may not say).
    private struct Found {
        var image: Image
        var width: Int
        var height: Int
        var bitsPerPixel: Int
    }

    private static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func readHeader(_ reader: ByteReader, limits: ValidationLimits) throws(ParseFailure) -> ImageInfo {
        let entries = try readDirectory(reader)
        // The directory's sizes, until the walk reads each image's own.
        let largest = entries.dropFirst().reduce(entries[0]) { $1.width * $1.height > $0.width * $0.height ? $1 : $0 }
        return ImageInfo(format: .ico, pixelWidth: largest.width, pixelHeight: largest.height, isAnimated: false, frameCount: entries.count)
    }

    static func walkStructure(_ reader: ByteReader, header: ImageInfo, limits: ValidationLimits) throws(ParseFailure) -> ImageInfo {
        let images = try images(reader, limits: limits, validatingPNGs: true)
        let largest = images[largestIndex(images)]
        return ImageInfo(format: .ico, pixelWidth: largest.width, pixelHeight: largest.height, isAnimated: false, frameCount: images.count)
    }

    /// The image of the icon `data` whose size the validator reports (the largest; of several that
    /// large, the deepest), for a decoder that shows one.
    ///
    /// - Throws: ``ImageValidationError`` when `data` is no icon the validator accepts.
    package static func largestImage(in data: [UInt8]) throws(ImageValidationError) -> Image {
        do {
            // The validator has already held every entry to the pixel limit and walked its PNGs.
            let images = try images(ByteReader(data), limits: ValidationLimits(maxPixelCount: .max, svgByteLimit: 0, inflatedMetadataByteLimit: .max), validatingPNGs: false)
            return images[largestIndex(images)].image
        } catch {
            throw error.structureError(format: .ico, byteCount: data.count)
        }
    }

    /// Each entry's image and size, its bytes checked to lie inside the file apart from the other
    /// entries'; each PNG walked to its end (CRCs included) when `validatingPNGs`, else only its header read.
    private static func images(_ reader: ByteReader, limits: ValidationLimits, validatingPNGs: Bool) throws(ParseFailure) -> [Found] {
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
        var images: [Found] = []
        for (index, range) in ranges.enumerated() {
            if reader.bytes[range].starts(with: pngSignature) {
                let size = try embeddedPNGSize(Array(reader.bytes[range]), entry: index + 1, limits: limits, walking: validatingPNGs)
                images.append(Found(image: .png(range), width: size.width, height: size.height, bitsPerPixel: 32))
            } else {
                var cursor = reader
                try cursor.seek(toRelative: range.lowerBound)
                let layout = try BitmapLayout.ofIconEntry(try cursor.readWindow(range.count), name: "the bitmap of entry \(index + 1)")
                try limits.checkPixels(.ico, width: layout.width, height: layout.height)
                images.append(Found(image: .bitmap(layout), width: layout.width, height: layout.height, bitsPerPixel: layout.bitsPerPixel))
            }
        }
        return images
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
    private static func embeddedPNGSize(
        _ image: [UInt8], entry: Int, limits: ValidationLimits, walking: Bool
    ) throws(ParseFailure) -> (width: Int, height: Int) {
        do {
            let header = try PNGParser.readHeader(ByteReader(image), limits: limits)
            guard walking else { return (header.pixelWidth, header.pixelHeight) }
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

    /// The index of the first of the largest images (by area), and of those the deepest: an
    /// icon often holds one size at several colour depths.
    private static func largestIndex(_ images: [Found]) -> Int {
        images.indices.reduce(0) { best, index in
            let (candidate, leader) = (images[index], images[best])
            let (area, leaderArea) = (candidate.width * candidate.height, leader.width * leader.height)
            return area > leaderArea || (area == leaderArea && candidate.bitsPerPixel > leader.bitsPerPixel) ? index : best
        }
    }
}
