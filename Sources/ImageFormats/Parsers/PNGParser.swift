/// PNG (ISO/IEC 15948): an 8-byte signature, then chunks of length, type, data and CRC-32, from
/// IHDR to IEND. Animated PNG adds `acTL` and `fcTL` chunks.
enum PNGParser: ImageFormatParser {
    /// The fields of the IHDR chunk.
    private struct ImageHeader {
        var width: Int
        var height: Int
        var bitDepth: UInt8
        var colorType: UInt8
        var isInterlaced: Bool

        /// The colour type's channels.
        var channels: Int { [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][Int(colorType)] ?? 1 }

        /// Bits per pixel: the colour type's channels times the bit depth.
        var bitsPerPixel: Int { channels * Int(bitDepth) }

        /// Bytes per pixel once decoded: a palette expanded to RGBA, samples of under 8 bits to 8.
        var decodedBytesPerPixel: Int { colorType == 3 ? 4 : channels * (bitDepth == 16 ? 2 : 1) }
    }

    /// The bit depths each colour type allows.
    private static let bitDepthsByColorType: [UInt8: Set<UInt8>] = [0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16]]
    /// PNG limits every length and dimension to 2^31 - 1 so that signed readers cope.
    private static let maxValue = 0x7FFF_FFFF

    static func readHeader(_ reader: ByteReader, limits: ValidationLimits) throws(ParseFailure) -> ImageInfo {
        var reader = reader
        try reader.skip(8)  // The signature, already matched by sniffing.
        let header = try readImageHeader(&reader)
        try limits.checkPixels(.png, width: header.width, height: header.height)
        return ImageInfo(format: .png, pixelWidth: header.width, pixelHeight: header.height)
    }

    /// Reads and checks the IHDR chunk, which must come first.
    private static func readImageHeader(_ reader: inout ByteReader) throws(ParseFailure) -> ImageHeader {
        let length = try reader.readUInt32(.bigEndian)
        let typeStart = reader.offset
        let type = try reader.readFourCC()
        guard type == "IHDR" else { throw .malformed("the first chunk is '\(type)', not IHDR") }
        guard length == 13 else { throw .malformed("IHDR is \(length) bytes long instead of 13") }
        var fields = try reader.readWindow(13)
        let storedCRC = try reader.readUInt32(.bigEndian)
        guard CRC32.checksum(reader.bytes[typeStart..<(typeStart + 17)]) == storedCRC else {
            throw .malformed("the CRC-32 of IHDR does not match its contents")
        }
        let width = try fields.readInt(byteCount: 4, .bigEndian)
        let height = try fields.readInt(byteCount: 4, .bigEndian)
        let bitDepth = try fields.readUInt8()
        let colorType = try fields.readUInt8()
        let compression = try fields.readUInt8()
        let filter = try fields.readUInt8()
        let interlace = try fields.readUInt8()
        guard (1...maxValue).contains(width), (1...maxValue).contains(height) else {
            throw .malformed("IHDR declares \(width)x\(height); each side must be 1 to 2^31-1")
        }
        guard bitDepthsByColorType[colorType]?.contains(bitDepth) == true else {
            throw .malformed("bit depth \(bitDepth) is not valid for colour type \(colorType)")
        }
        guard compression == 0, filter == 0, interlace <= 1 else {
            throw .malformed("unknown compression (\(compression)), filter (\(filter)) or interlace (\(interlace)) method")
        }
        return ImageHeader(width: width, height: height, bitDepth: bitDepth, colorType: colorType, isInterlaced: interlace == 1)
    }

    static func walkStructure(_ reader: ByteReader, header: ImageInfo, limits: ValidationLimits) throws(ParseFailure) -> ImageInfo {
        var reader = reader
        try reader.skip(8)
        let imageHeader = try readImageHeader(&reader)
        var sawPalette = false, dataChunkCount = 0, declaredFrames: Int?
        // The IDAT payloads, when the image data is to be checked too (see PNGImageData).
        var imageData: [UInt8] = []
        var metadata = PNGCompressedMetadata(limit: limits.inflatedMetadataByteLimit)
        var lastType = "IHDR"
        while true {
            guard reader.has(8) else {
                throw .refused(.truncated(format: .png, reason: "the file ends after chunk \(lastType), without an IEND chunk"))
            }
            let length = try reader.readInt(byteCount: 4, .bigEndian)
            let typeStart = reader.offset
            let typeBytes = try reader.readBytes(4)
            let type = FourCC.text(typeBytes)
            guard length <= maxValue else { throw .malformed("chunk \(type) declares \(length) bytes, over PNG's 2^31-1 limit") }
            guard typeBytes.allSatisfy(isASCIILetter) else { throw .malformed("a chunk after \(lastType) has the invalid type '\(type)'") }
            guard length <= reader.remaining - 4 else {
                throw .refused(.truncated(format: .png, reason: "chunk \(type) of \(length) bytes runs past the end of the file"))
            }
            var body = try reader.readWindow(length)
            let storedCRC = try reader.readUInt32(.bigEndian)
            guard CRC32.checksum(reader.bytes[typeStart..<(reader.offset - 4)]) == storedCRC else {
                throw .malformed("the CRC-32 of chunk \(type) does not match its contents")
            }
            lastType = type
            switch type {
            case "IHDR":
                throw .malformed("a second IHDR chunk")
            case "PLTE":
                guard dataChunkCount == 0, !sawPalette else { throw .malformed("PLTE comes after the image data or twice") }
                guard length % 3 == 0, (3...768).contains(length) else { throw .malformed("PLTE holds \(length) bytes, not 1 to 256 RGB entries") }
                sawPalette = true
            case "IDAT":
                guard imageHeader.colorType != 3 || sawPalette else { throw .malformed("a palette image has no PLTE chunk before its data") }
                dataChunkCount += 1
                if limits.checksImageData { imageData += body.bytes[body.offset..<(body.offset + length)] }
            case "acTL":
                guard dataChunkCount == 0 else { throw .malformed("acTL comes after the image data") }
                let frames = try body.readInt(byteCount: 4, .bigEndian)
                guard (1...maxValue).contains(frames) else { throw .malformed("acTL declares \(frames) frames") }
                declaredFrames = frames
            case "fcTL":
                try checkFrameControl(&body, canvas: imageHeader, limits: limits)
            case "IEND":
                guard length == 0 else { throw .malformed("IEND is not empty") }
                guard dataChunkCount > 0 else { throw .malformed("there is no IDAT chunk, so no image data") }
                if limits.checksImageData {
                    try PNGImageData(
                        width: imageHeader.width, height: imageHeader.height, bitsPerPixel: imageHeader.bitsPerPixel,
                        isInterlaced: imageHeader.isInterlaced
                    ).check(imageData)
                }
                let frames = declaredFrames ?? 1
                return ImageInfo(format: .png, pixelWidth: imageHeader.width, pixelHeight: imageHeader.height,
                                 isAnimated: frames > 1, frameCount: frames, bytesPerPixel: imageHeader.decodedBytesPerPixel)
            case "zTXt", "iTXt", "iCCP":
                try metadata.add(type, body: body)
            default:
                break  // Ancillary and private chunks only need a valid length and CRC.
            }
        }
    }

    /// Checks an APNG frame's rectangle lies within the canvas; frames are decoded at their own size.
    private static func checkFrameControl(_ body: inout ByteReader, canvas: ImageHeader, limits: ValidationLimits) throws(ParseFailure) {
        try body.skip(4)  // Sequence number.
        let width = try body.readInt(byteCount: 4, .bigEndian), height = try body.readInt(byteCount: 4, .bigEndian)
        let x = try body.readInt(byteCount: 4, .bigEndian), y = try body.readInt(byteCount: 4, .bigEndian)
        try limits.checkPixels(.png, width: width, height: height)
        guard width > 0, height > 0, x <= canvas.width - width, y <= canvas.height - height else {
            throw .malformed("an animation frame of \(width)x\(height) at (\(x), \(y)) lies outside the \(canvas.width)x\(canvas.height) canvas")
        }
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }
}
