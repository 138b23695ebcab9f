/// GIF87a/GIF89a: header, logical screen descriptor, optional global colour table, then extension
/// and image blocks (each followed by data sub-blocks) up to the trailer byte 0x3B.
enum GIFParser: ImageFormatParser {
    /// What a walk over the blocks has seen so far.
    private struct Progress {
        var frameCount = 0
        /// The canvas decoders draw on: the logical screen, grown to hold the first frame (libvips'
        /// GIF loader sizes its canvas so, and allocates all of it, however small the screen says it is).
        var canvas: (width: Int, height: Int)
        /// Whether a NETSCAPE2.0 / ANIMEXTS1.0 looping extension was seen: an animation hint.
        var hasLoopingExtension = false
    }

    private static let extensionIntroducer: UInt8 = 0x21
    private static let imageSeparator: UInt8 = 0x2C
    private static let trailer: UInt8 = 0x3B

    static func readHeader(_ reader: ByteReader, limits: ValidationLimits) throws(ParseFailure) -> ImageInfo {
        var reader = reader
        let screen = try readScreen(&reader, limits: limits)
        // The header read goes on to the first image descriptor, because a frame's size and place
        // matter as much as the screen's: a 1x1 screen can hold a 65535x65535 frame, or a small
        // frame placed 60,000 pixels from its origin.
        var progress = Progress(canvas: screen)
        try walkBlocks(&reader, progress: &progress, limits: limits, stopAtFirstImage: true)
        return ImageInfo(format: .gif, pixelWidth: progress.canvas.width, pixelHeight: progress.canvas.height,
                         isAnimated: progress.hasLoopingExtension)
    }

    static func walkStructure(_ reader: ByteReader, header: ImageInfo, limits: ValidationLimits) throws(ParseFailure) -> ImageInfo {
        var reader = reader
        let screen = try readScreen(&reader, limits: limits)
        var progress = Progress(canvas: screen)
        do {
            try walkBlocks(&reader, progress: &progress, limits: limits, stopAtFirstImage: false)
        } catch .needMoreBytes {
            throw .refused(.truncated(format: .gif, reason: "the file ends after \(progress.frameCount) complete frames, without the trailer byte"))
        }
        return ImageInfo(format: .gif, pixelWidth: progress.canvas.width, pixelHeight: progress.canvas.height,
                         isAnimated: progress.frameCount > 1, frameCount: progress.frameCount)
    }

    /// Reads the signature and logical screen descriptor, and skips the global colour table.
    private static func readScreen(_ reader: inout ByteReader, limits: ValidationLimits) throws(ParseFailure) -> (width: Int, height: Int) {
        try reader.skip(6)  // GIF87a or GIF89a, already matched by sniffing.
        let width = Int(try reader.readUInt16(.littleEndian))
        let height = Int(try reader.readUInt16(.littleEndian))
        let flags = try reader.readUInt8()
        try reader.skip(2)  // Background colour index, pixel aspect ratio.
        guard width > 0, height > 0 else { throw .malformed("the logical screen is \(width)x\(height)") }
        try limits.checkPixels(.gif, width: width, height: height)
        if flags & 0x80 != 0 { try reader.skip(colorTableByteCount(flags)) }
        return (width, height)
    }

    /// Walks blocks up to the trailer, or up to the first image descriptor when `stopAtFirstImage`.
    private static func walkBlocks(_ reader: inout ByteReader, progress: inout Progress, limits: ValidationLimits,
                                   stopAtFirstImage: Bool) throws(ParseFailure) {
        while true {
            let position = reader.relativeOffset
            switch try reader.readUInt8() {
            case extensionIntroducer:
                let label = try reader.readUInt8()
                if label == 0xFF, try isLoopingApplication(reader) { progress.hasLoopingExtension = true }
                try skipSubBlocks(&reader)
            case imageSeparator:
                let frame = try skipImage(&reader, number: progress.frameCount + 1, limits: limits, descriptorOnly: stopAtFirstImage)
                if progress.frameCount == 0 {
                    // Later frames are clipped to the canvas; only the first one grows it.
                    progress.canvas = (max(progress.canvas.width, frame.right), max(progress.canvas.height, frame.bottom))
                    try limits.checkPixels(.gif, width: progress.canvas.width, height: progress.canvas.height)
                }
                if stopAtFirstImage { return }
                progress.frameCount += 1
                guard progress.frameCount <= ValidationLimits.maxFrameCount else { throw .malformed("more than \(ValidationLimits.maxFrameCount) frames") }
            case trailer:
                guard progress.frameCount > 0 else { throw .malformed("the trailer comes before any image") }
                return
            case let byte:
                throw .malformed("unknown block \(Hex.byte(byte)) at offset \(position)")
            }
        }
    }

    /// Reads an image descriptor and, unless `descriptorOnly`, skips its colour table and data;
    /// returns where the frame's right and bottom edges lie.
    private static func skipImage(_ reader: inout ByteReader, number: Int, limits: ValidationLimits,
                                  descriptorOnly: Bool) throws(ParseFailure) -> (right: Int, bottom: Int) {
        let left = Int(try reader.readUInt16(.littleEndian))
        let top = Int(try reader.readUInt16(.littleEndian))
        let width = Int(try reader.readUInt16(.littleEndian))
        let height = Int(try reader.readUInt16(.littleEndian))
        let flags = try reader.readUInt8()
        guard width > 0, height > 0 else { throw .malformed("image \(number) is \(width)x\(height)") }
        try limits.checkPixels(.gif, width: width, height: height)
        let edges = (right: left + width, bottom: top + height)
        if descriptorOnly { return edges }
        if flags & 0x80 != 0 { try reader.skip(colorTableByteCount(flags)) }
        let minimumCodeSize = try reader.readUInt8()
        guard (2...8).contains(minimumCodeSize) else { throw .malformed("image \(number) has an LZW minimum code size of \(minimumCodeSize)") }
        guard limits.checksImageData else {
            try skipSubBlocks(&reader)
            return edges
        }
        var data: [UInt8] = []
        while true {
            let length = Int(try reader.readUInt8())
            if length == 0 { break }
            data += try reader.readBytes(length)
        }
        try GIFImageData.check(data, minimumCodeSize: Int(minimumCodeSize), number: number)
        return edges
    }

    /// Whether the application extension starting at `reader` is a looping (animation) extension.
    private static func isLoopingApplication(_ reader: ByteReader) throws(ParseFailure) -> Bool {
        guard try reader.peekUInt8() == 11 else { return false }
        var identifier = reader
        try identifier.skip(1)
        let name = FourCC.text(try identifier.readBytes(11))
        return name == "NETSCAPE2.0" || name == "ANIMEXTS1.0"
    }

    /// Skips data sub-blocks (a length byte, then that many bytes) up to the empty terminator.
    private static func skipSubBlocks(_ reader: inout ByteReader) throws(ParseFailure) {
        while true {
            let length = Int(try reader.readUInt8())
            if length == 0 { return }
            try reader.skip(length)
        }
    }

    /// The size of a colour table: 3 bytes for each of 2^(n+1) entries.
    private static func colorTableByteCount(_ flags: UInt8) -> Int {
        3 << (Int(flags & 0x07) + 1)
    }
}
