import Foundation
@testable import ImageFormats

/// Small images built byte by byte, for cases the corpus does not cover.
enum SyntheticImages {
    /// A PNG chunk: length, type, body, CRC-32.
    static func pngChunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        return bigEndian32(body.count) + typeBytes + body + bigEndian32(Int(CRC32.checksum((typeBytes + body)[...])))
    }

    /// A PNG of `width` x `height`, 8-bit grey; the IDAT content is not a real zlib stream, which
    /// the validator never inflates.
    static func png(width: Int, height: Int, extraChunks: [[UInt8]] = [], idat: Bool = true, iend: Bool = true) -> [UInt8] {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += pngChunk("IHDR", bigEndian32(width) + bigEndian32(height) + [8, 0, 0, 0, 0])
        for chunk in extraChunks { bytes += chunk }
        if idat { bytes += pngChunk("IDAT", [0x78, 0x01, 0x01, 0x00, 0x00, 0xFF, 0xFF]) }
        if iend { bytes += pngChunk("IEND", []) }
        return bytes
    }

    /// A baseline JPEG of `width` x `height` with one grey component and a token scan.
    static func jpeg(width: Int, height: Int, endOfImage: Bool = true) -> [UInt8] {
        var bytes: [UInt8] = [0xFF, 0xD8]
        bytes += [0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
        bytes += [0xFF, 0xC0, 0x00, 0x0B, 8] + bigEndian16(height) + bigEndian16(width) + [1, 1, 0x11, 0]
        bytes += [0xFF, 0xDA, 0x00, 0x08, 1, 1, 0x00, 0, 63, 0]
        bytes += [0x12, 0x34, 0xFF, 0x00, 0x56, 0xFF, 0xD0, 0x78]  // Data with a stuffed 0xFF and a restart marker.
        if endOfImage { bytes += [0xFF, 0xD9] }
        return bytes
    }

    /// A grey progressive JPEG of `width` x `height` that decodes: a DC scan of zeros, then
    /// `acScans` first-pass AC scans that each end every block at once with end-of-band runs, so
    /// each scan is a few bytes and a pass over every block of the image.
    static func progressiveJPEG(width: Int, height: Int, acScans: Int) -> [UInt8] {
        func segment(_ marker: UInt8, _ body: [UInt8]) -> [UInt8] { [0xFF, marker] + bigEndian16(body.count + 2) + body }
        var bytes: [UInt8] = [0xFF, 0xD8]
        bytes += segment(0xDB, [0] + [UInt8](repeating: 1, count: 64))
        bytes += segment(0xC2, [8] + bigEndian16(height) + bigEndian16(width) + [1, 1, 0x11, 0])
        // One one-bit code each: DC difference category 0, and EOB14 (a run of 2^14 + 14 bits).
        bytes += segment(0xC4, [0x00, 1] + [UInt8](repeating: 0, count: 15) + [0x00])
        bytes += segment(0xC4, [0x10, 1] + [UInt8](repeating: 0, count: 15) + [0xE0])
        let blocks = ((width + 7) / 8) * ((height + 7) / 8)
        bytes += segment(0xDA, [1, 1, 0x00, 0, 0, 0x00]) + [UInt8](repeating: 0, count: (blocks + 7) / 8)
        // Runs of 32,767 blocks (code 0, then fourteen 1 bits), enough to pass the last block.
        var bits: [Bool] = []
        for _ in 0..<((blocks + 32_766) / 32_767) { bits += [false] + [Bool](repeating: true, count: 14) }
        while bits.count % 8 != 0 { bits.append(true) }
        var data: [UInt8] = []
        for start in stride(from: 0, to: bits.count, by: 8) {
            let byte = bits[start..<start + 8].reduce(UInt8(0)) { $0 << 1 | ($1 ? 1 : 0) }
            data += byte == 0xFF ? [0xFF, 0x00] : [byte]
        }
        for _ in 0..<acScans { bytes += segment(0xDA, [1, 1, 0x00, 1, 63, 0x00]) + data }
        return bytes + [0xFF, 0xD9]
    }

    /// A camera-like baseline JPEG of `totalBytes`: EXIF and ICC segments of 180 KB (a camera's
    /// embedded thumbnail and profile) before the frame header, then scan data to the end.
    static func cameraJPEG(width: Int, height: Int, totalBytes: Int) -> [UInt8] {
        var bytes: [UInt8] = [0xFF, 0xD8]
        for (marker, tag) in [(0xE1, "Exif\0\0"), (0xE1, "http://ns.adobe.com/xap/1.0/\0"), (0xE2, "ICC_PROFILE\0")] {
            let payload = Array(tag.utf8) + [UInt8](repeating: 0x20, count: 60_000)
            bytes += [0xFF, UInt8(marker)] + bigEndian16(payload.count + 2) + payload
        }
        bytes += [0xFF, 0xC0, 0x00, 0x11, 8] + bigEndian16(height) + bigEndian16(width)
        bytes += [3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]
        bytes += [0xFF, 0xDA, 0x00, 0x0C, 3, 1, 0x00, 2, 0x11, 3, 0x11, 0, 63, 0]
        // Scan data never holds a bare 0xFF, so no marker appears before the end.
        var state: UInt32 = 0x1234_5678
        while bytes.count < totalBytes - 2 {
            state = state &* 1_664_525 &+ 1_013_904_223
            bytes.append(UInt8(truncatingIfNeeded: state >> 24) & 0xFE)
        }
        bytes += [0xFF, 0xD9]
        return bytes
    }

    /// A GIF89a with a `screen` logical screen and one frame of `frame` size placed at `origin`
    /// (with a tiny LZW stream).
    static func gif(screen: (Int, Int), frame: (Int, Int), origin: (Int, Int) = (0, 0), trailer: Bool = true) -> [UInt8] {
        var bytes = Array("GIF89a".utf8) + littleEndian16(screen.0) + littleEndian16(screen.1) + [0x80, 0, 0]
        bytes += [0, 0, 0, 255, 255, 255]  // Global colour table of 2 entries.
        bytes += [0x2C] + littleEndian16(origin.0) + littleEndian16(origin.1) + littleEndian16(frame.0) + littleEndian16(frame.1) + [0]
        bytes += [2, 2, 0x4C, 0x01, 0]  // LZW minimum code size 2, one sub-block, terminator.
        if trailer { bytes += [0x3B] }
        return bytes
    }

    /// A little-endian TIFF of one uncompressed strip whose IFD chain ends at `nextIFD` (0 for none),
    /// declaring `samples` (SamplesPerPixel and BitsPerSample) when given.
    static func tiff(width: Int, height: Int, nextIFD: Int = 0, samples: (count: Int, bits: Int)? = nil) -> [UInt8] {
        var bytes: [UInt8] = [0x49, 0x49, 0x2A, 0x00] + littleEndian32(8)
        let sampleEntries: [(tag: Int, type: Int, value: Int)] = samples.map { [(258, 3, $0.bits), (277, 3, $0.count)] } ?? []
        let entryCount = 4 + sampleEntries.count
        let entries: [(tag: Int, type: Int, value: Int)] =
            [(256, 3, width), (257, 3, height)] + sampleEntries + [(273, 4, 8 + 2 + entryCount * 12 + 4), (279, 4, width * height)]
        bytes += littleEndian16(entries.count)
        for entry in entries {
            bytes += littleEndian16(entry.tag) + littleEndian16(entry.type) + littleEndian32(1)
            bytes += entry.type == 3 ? littleEndian16(entry.value) + [0, 0] : littleEndian32(entry.value)
        }
        bytes += littleEndian32(nextIFD)
        bytes += Array(repeating: 0x80, count: width * height)
        return bytes
    }

    /// An AVIF of one 1x1 item whose `iloc` (version 0, no base offset) lists `itemCount` items
    /// with `extentCount` extents each, every extent record `offsetSize` + `lengthSize` bytes
    /// wide (0, 4 or 8) and pointing at the 4-byte `mdat` payload at the end.
    static func avif(itemCount: Int = 1, extentCount: Int = 1, offsetSize: Int = 4, lengthSize: Int = 4) -> [UInt8] {
        func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { bigEndian32(8 + payload.count) + Array(type.utf8) + payload }
        func fullBox(_ type: String, _ payload: [UInt8]) -> [UInt8] { box(type, [0, 0, 0, 0] + payload) }
        func field(_ value: Int, size: Int) -> [UInt8] { Array((size == 8 ? [0, 0, 0, 0] : []) + bigEndian32(value)).suffix(size) }
        let ftyp = box("ftyp", Array("avif".utf8) + bigEndian32(0) + Array("avifmif1miaf".utf8))
        let hdlr = fullBox("hdlr", bigEndian32(0) + Array("pict".utf8) + Array(repeating: 0, count: 13))
        let pitm = fullBox("pitm", bigEndian16(1))
        let ipco = box("ipco", fullBox("ispe", bigEndian32(1) + bigEndian32(1)))
        let ipma = fullBox("ipma", bigEndian32(1) + bigEndian16(1) + [1, 0x81])
        func meta(dataOffset: Int) -> [UInt8] {
            let extent = field(dataOffset, size: offsetSize) + field(4, size: lengthSize)
            let extents = Array(Array(repeating: extent, count: extent.isEmpty ? 0 : extentCount).joined())
            var locations: [UInt8] = [UInt8(offsetSize << 4 | lengthSize), 0] + bigEndian16(itemCount)
            locations.reserveCapacity(locations.count + itemCount * (6 + extents.count))
            for item in 0..<itemCount {
                locations += bigEndian16(item + 1) + bigEndian16(0) + bigEndian16(extentCount) + extents
            }
            return fullBox("meta", hdlr + pitm + box("iprp", ipco + ipma) + fullBox("iloc", locations))
        }
        // The offsets' widths are fixed, so the meta box's size does not depend on their values.
        let dataOffset = ftyp.count + meta(dataOffset: 0).count + 8
        return ftyp + meta(dataOffset: dataOffset) + box("mdat", [0, 0, 0, 0])
    }

    /// A UTF-8 document as data.
    static func text(_ string: String) -> Data { Data(string.utf8) }

    static func bigEndian32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
    static func bigEndian16(_ value: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)] }
    static func littleEndian32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    static func littleEndian16(_ value: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)] }
}
