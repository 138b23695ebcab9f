#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// JPEG (ITU-T T.81): SOI, marker segments, one frame header (SOFn), scans of entropy-coded data, EOI.
enum JPEGParser: ImageFormatParser {
    /// What the frame header (SOFn) says.
    private struct Frame {
        var width: Int
        var height: Int
        var componentIDs: [UInt8]
    }

    private static let startOfScan: UInt8 = 0xDA
    /// Most scans that may visit each component, counted over the scans' component lists. A
    /// progressive decoder passes over every block of a scan's components once per scan, so a
    /// small file of thousands of near-empty scans costs thousands of decodes of a large image;
    /// real encoders use about ten scans in all.
    static let maxScansPerComponent = 64
    private static let endOfImage: UInt8 = 0xD9

    /// SOF0-3, 5-7, 9-11, 13-15; 0xC4 (DHT), 0xC8 (JPG) and 0xCC (DAC) share the range but are not frames.
    private static func isStartOfFrame(_ marker: UInt8) -> Bool {
        (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker)
    }

    /// Markers that stand alone, without a length: TEM and the restart markers.
    private static func isStandalone(_ marker: UInt8) -> Bool {
        marker == 0x01 || (0xD0...0xD7).contains(marker)
    }

    static func readHeader(_ reader: ByteReader, limits: ValidationLimits) throws(ParseFailure) -> ImageInfo {
        var reader = reader
        try reader.skip(2)  // SOI, already matched by sniffing.
        while true {
            let marker = try readMarker(&reader)
            if isStartOfFrame(marker) {
                let frame = try readFrame(&reader, marker: marker)
                try limits.checkPixels(.jpeg, width: frame.width, height: frame.height)
                return ImageInfo(format: .jpeg, pixelWidth: frame.width, pixelHeight: frame.height)
            }
            switch marker {
            case startOfScan: throw .malformed("a scan starts before any frame header (SOF)")
            case endOfImage: throw .malformed("the image ends (EOI) before any frame header (SOF)")
            default: _ = try readSegment(&reader, marker: marker)
            }
        }
    }

    static func walkStructure(_ reader: ByteReader, header: ImageInfo, limits: ValidationLimits) throws(ParseFailure) -> ImageInfo {
        var reader = reader
        try reader.skip(2)
        var frame: Frame?
        var scanCount = 0
        var componentScans = 0
        while true {
            let marker: UInt8
            do {
                marker = try readMarker(&reader)
            } catch .needMoreBytes {
                throw .refused(.truncated(format: .jpeg, reason: "the file ends after \(scanCount) scans, without an EOI marker"))
            }
            if isStartOfFrame(marker) {
                guard frame == nil else { throw .malformed("a second frame header (SOF)") }
                frame = try readFrame(&reader, marker: marker)
                continue
            }
            switch marker {
            case startOfScan:
                guard let frame else { throw .malformed("a scan starts before any frame header (SOF)") }
                var segment = try readSegment(&reader, marker: marker)
                componentScans += try checkScanHeader(&segment, frame: frame)
                scanCount += 1
                let limit = maxScansPerComponent * frame.componentIDs.count
                guard componentScans <= limit else {
                    throw .refused(.refusedContent(
                        format: .jpeg,
                        reason: "its \(scanCount) scans visit its \(frame.componentIDs.count) components \(componentScans) times, over the limit of \(limit) (\(maxScansPerComponent) each): every scan is a pass over the whole image"))
                }
                try skipEntropyCodedData(&reader, scanNumber: scanCount)
            case endOfImage:
                guard let frame else { throw .malformed("the image ends (EOI) before any frame header (SOF)") }
                guard scanCount > 0 else { throw .malformed("the image ends (EOI) without any scan, so no image data") }
                return ImageInfo(format: .jpeg, pixelWidth: frame.width, pixelHeight: frame.height, isAnimated: false, frameCount: 1)
            default:
                _ = try readSegment(&reader, marker: marker)
            }
        }
    }

    /// Reads `0xFF`, any fill bytes, and the marker code.
    private static func readMarker(_ reader: inout ByteReader) throws(ParseFailure) -> UInt8 {
        let position = reader.relativeOffset
        let lead = try reader.readUInt8()
        guard lead == 0xFF else {
            throw .malformed("byte \(Hex.byte(lead)) at offset \(position) where a marker should start")
        }
        var marker = try reader.readUInt8()
        while marker == 0xFF { marker = try reader.readUInt8() }  // Fill bytes; each one consumes input.
        guard marker != 0x00 else { throw .malformed("an escaped 0xFF00 outside entropy-coded data at offset \(position)") }
        return marker
    }

    /// Reads a marker segment's body (empty for standalone markers), refusing reserved markers.
    private static func readSegment(_ reader: inout ByteReader, marker: UInt8) throws(ParseFailure) -> ByteReader {
        if isStandalone(marker) { return try reader.readWindow(0) }
        if marker == 0xD8 { throw .malformed("a second start-of-image (SOI) marker") }
        if (0x02...0xBF).contains(marker) { throw .malformed("the reserved marker \(Hex.marker(marker))") }
        let length = Int(try reader.readUInt16(.bigEndian))
        guard length >= 2 else { throw .malformed("marker \(Hex.marker(marker)) has a segment length below 2") }
        return try reader.readWindow(length - 2)
    }

    /// Reads and checks a frame header (SOFn).
    private static func readFrame(_ reader: inout ByteReader, marker: UInt8) throws(ParseFailure) -> Frame {
        var segment = try readSegment(&reader, marker: marker)
        let precision = try segment.readUInt8()
        let height = Int(try segment.readUInt16(.bigEndian))
        let width = Int(try segment.readUInt16(.bigEndian))
        let componentCount = Int(try segment.readUInt8())
        let isLossless = [0xC3, 0xC7, 0xCB, 0xCF].contains(marker)
        let validPrecisions: [UInt8] = isLossless ? Array(2...16) : (marker == 0xC0 ? [8] : [8, 12])
        guard validPrecisions.contains(precision) else {
            throw .malformed("frame header \(Hex.marker(marker)) declares a sample precision of \(precision) bits")
        }
        guard width > 0, height > 0 else { throw .malformed("the frame header declares \(width)x\(height) pixels") }
        guard (1...4).contains(componentCount) else { throw .malformed("the frame header declares \(componentCount) colour components") }
        guard segment.remaining == 3 * componentCount else { throw .malformed("the frame header's length does not match its \(componentCount) components") }
        var componentIDs: [UInt8] = []
        for _ in 0..<componentCount {
            let id = try segment.readUInt8()
            let sampling = try segment.readUInt8()
            let quantizationTable = try segment.readUInt8()
            guard (1...4).contains(sampling >> 4), (1...4).contains(sampling & 0x0F), quantizationTable <= 3 else {
                throw .malformed("component \(id) has invalid sampling factors or quantisation table")
            }
            componentIDs.append(id)
        }
        return Frame(width: width, height: height, componentIDs: componentIDs)
    }

    /// Checks a scan header (SOS) names 1 to 4 of the frame's components.
    /// Checks a scan header (SOS) against the frame; returns how many components the scan codes.
    private static func checkScanHeader(_ segment: inout ByteReader, frame: Frame) throws(ParseFailure) -> Int {
        let count = Int(try segment.readUInt8())
        guard (1...4).contains(count), segment.remaining == 2 * count + 3 else { throw .malformed("a scan header declares \(count) components or has the wrong length") }
        for _ in 0..<count {
            let id = try segment.readUInt8()
            try segment.skip(1)  // Huffman table selectors.
            guard frame.componentIDs.contains(id) else { throw .malformed("a scan refers to component \(id), which the frame does not have") }
        }
        return count
    }

    /// Moves past a scan's entropy-coded data to the next marker (stuffed `FF 00` bytes and restart
    /// markers belong to the data).
    private static func skipEntropyCodedData(_ reader: inout ByteReader, scanNumber: Int) throws(ParseFailure) {
        let start = reader.offset, end = reader.end
        // The scan crosses almost the whole file, so each 0xFF is found with the C library's
        // vectorised `memchr` (a byte-at-a-time loop made validation cost more than the loopback
        // fetch of the image itself). It reads only indices below `end`, which lies in the buffer.
        let markerIndex: Int? = reader.bytes.withUnsafeBufferPointer { bytes in
            guard let base = bytes.baseAddress else { return nil }
            var index = start
            while index + 1 < end {
                guard let found = memchr(base + index, 0xFF, end - 1 - index) else { return nil }
                index = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                let next = bytes[index + 1]
                if next == 0x00 || (0xD0...0xD7).contains(next) {
                    index += 2
                } else if next == 0xFF {
                    index += 1
                } else {
                    return index
                }
            }
            return nil
        }
        guard let markerIndex else {
            throw .refused(.truncated(format: .jpeg, reason: "the data of scan \(scanNumber) runs to the end of the file without an EOI marker"))
        }
        try reader.seek(toRelative: markerIndex - reader.start)
    }
}
