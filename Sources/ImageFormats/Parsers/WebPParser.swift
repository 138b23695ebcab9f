/// WebP: a RIFF container (`RIFF`, size, `WEBP`) holding one VP8 (lossy) or VP8L (lossless)
/// bitstream, or a VP8X header followed by ICC, animation (ANIM, ANMF), alpha and metadata chunks.
enum WebPParser: ImageFormatParser {
    /// The extended-format header.
    private struct CanvasHeader {
        var width: Int
        var height: Int
        var isAnimated: Bool
    }

    static func readHeader(_ reader: ByteReader, limits: ValidationLimits) throws(ParseFailure) -> ImageInfo {
        var reader = reader
        let riffSize = try readRIFFHeader(&reader)
        guard riffSize >= 4 else { throw .malformed("the RIFF size \(riffSize) cannot hold the WEBP form type") }
        let fourCC = try reader.readFourCC()
        let chunkSize = try reader.readInt(byteCount: 4, .littleEndian)
        switch fourCC {
        case "VP8 ", "VP8L":
            let size = try WebPBitstream.size(fourCC: fourCC, reader, chunkSize: chunkSize)
            try limits.checkPixels(.webp, width: size.width, height: size.height)
            return ImageInfo(format: .webp, pixelWidth: size.width, pixelHeight: size.height)
        case "VP8X":
            let canvas = try readCanvasHeader(&reader, chunkSize: chunkSize, limits: limits)
            return ImageInfo(format: .webp, pixelWidth: canvas.width, pixelHeight: canvas.height, isAnimated: canvas.isAnimated)
        default:
            throw .malformed("the first chunk is '\(fourCC)', not VP8, VP8L or VP8X")
        }
    }

    static func walkStructure(_ reader: ByteReader, header: ImageInfo, limits: ValidationLimits) throws(ParseFailure) -> ImageInfo {
        var reader = reader
        let riffSize = try readRIFFHeader(&reader)
        // Bytes after the RIFF container are ignored, as libwebp does; missing ones mean a cut-off file.
        guard riffSize - 4 <= reader.remaining else {
            throw .refused(.truncated(format: .webp, reason: "the RIFF header says \(riffSize) bytes follow its size field, but only \(reader.remaining + 4) do"))
        }
        var chunks = try reader.readWindow(riffSize - 4)
        let first = try readChunk(&chunks)
        if first.fourCC == "VP8 " || first.fourCC == "VP8L" {
            let size = try WebPBitstream.size(fourCC: first.fourCC, first.payload, chunkSize: first.payload.remaining)
            return ImageInfo(format: .webp, pixelWidth: size.width, pixelHeight: size.height, isAnimated: false, frameCount: 1)
        }
        var payload = first.payload
        let canvas = try readCanvasHeader(&payload, chunkSize: first.payload.remaining, limits: limits)
        var frameCount = 0, stillBitstreamCount = 0
        while !chunks.isAtEnd {
            let chunk = try readChunk(&chunks)
            switch chunk.fourCC {
            case "ANMF" where canvas.isAnimated:
                try checkFrame(chunk.payload, canvas: canvas, limits: limits)
                frameCount += 1
                guard frameCount <= ValidationLimits.maxFrameCount else { throw .malformed("more than \(ValidationLimits.maxFrameCount) frames") }
            case "VP8 " where !canvas.isAnimated, "VP8L" where !canvas.isAnimated:
                let size = try WebPBitstream.size(fourCC: chunk.fourCC, chunk.payload, chunkSize: chunk.payload.remaining)
                guard size == (canvas.width, canvas.height) else {
                    throw .malformed("the VP8X canvas is \(canvas.width)x\(canvas.height) but the bitstream is \(size.width)x\(size.height)")
                }
                stillBitstreamCount += 1
            default:
                break  // ICCP, ANIM, ALPH, EXIF, XMP and unknown chunks only need a valid length.
            }
        }
        if canvas.isAnimated {
            guard frameCount > 0 else { throw .malformed("the animation flag is set but there is no ANMF frame") }
            return ImageInfo(format: .webp, pixelWidth: canvas.width, pixelHeight: canvas.height, isAnimated: frameCount > 1, frameCount: frameCount)
        }
        guard stillBitstreamCount == 1 else { throw .malformed("\(stillBitstreamCount) image bitstreams where one is needed") }
        return ImageInfo(format: .webp, pixelWidth: canvas.width, pixelHeight: canvas.height, isAnimated: false, frameCount: 1)
    }

    /// Reads `RIFF`, the size of what follows it, and `WEBP`; returns the size.
    private static func readRIFFHeader(_ reader: inout ByteReader) throws(ParseFailure) -> Int {
        try reader.skip(4)
        let riffSize = try reader.readInt(byteCount: 4, .littleEndian)
        try reader.skip(4)
        return riffSize
    }

    /// Reads the VP8X payload: flags and a canvas size of up to 2^24 per side.
    private static func readCanvasHeader(_ reader: inout ByteReader, chunkSize: Int, limits: ValidationLimits) throws(ParseFailure) -> CanvasHeader {
        guard chunkSize >= 10 else { throw .malformed("the VP8X chunk is \(chunkSize) bytes, not 10") }
        let flags = try reader.readUInt8()
        try reader.skip(3)
        let width = Int(try reader.readUInt24(.littleEndian)) + 1
        let height = Int(try reader.readUInt24(.littleEndian)) + 1
        // The specification caps the canvas area at 2^32 - 1, whatever the pixel policy.
        guard UInt64(width) * UInt64(height) <= 0xFFFF_FFFF else { throw .malformed("the VP8X canvas of \(width)x\(height) exceeds 2^32-1 pixels") }
        try limits.checkPixels(.webp, width: width, height: height)
        return CanvasHeader(width: width, height: height, isAnimated: flags & 0x02 != 0)
    }

    /// Checks an animation frame: its rectangle lies within the canvas and its bitstream matches it.
    private static func checkFrame(_ payload: ByteReader, canvas: CanvasHeader, limits: ValidationLimits) throws(ParseFailure) {
        var payload = payload
        let x = Int(try payload.readUInt24(.littleEndian)) * 2
        let y = Int(try payload.readUInt24(.littleEndian)) * 2
        let width = Int(try payload.readUInt24(.littleEndian)) + 1
        let height = Int(try payload.readUInt24(.littleEndian)) + 1
        try payload.skip(4)  // Duration and flags.
        try limits.checkPixels(.webp, width: width, height: height)
        guard x + width <= canvas.width, y + height <= canvas.height else {
            throw .malformed("an animation frame of \(width)x\(height) at (\(x), \(y)) lies outside the \(canvas.width)x\(canvas.height) canvas")
        }
        var bitstreamCount = 0
        while !payload.isAtEnd {
            let chunk = try readChunk(&payload)
            guard chunk.fourCC == "VP8 " || chunk.fourCC == "VP8L" else { continue }
            let size = try WebPBitstream.size(fourCC: chunk.fourCC, chunk.payload, chunkSize: chunk.payload.remaining)
            guard size == (width, height) else {
                throw .malformed("an animation frame is \(width)x\(height) but its bitstream is \(size.width)x\(size.height)")
            }
            bitstreamCount += 1
        }
        guard bitstreamCount == 1 else { throw .malformed("an animation frame holds \(bitstreamCount) bitstreams") }
    }

    /// Reads one chunk (FourCC, little-endian size, payload, pad byte to an even length).
    private static func readChunk(_ reader: inout ByteReader) throws(ParseFailure) -> (fourCC: String, payload: ByteReader) {
        let fourCC = try reader.readFourCC()
        let size = try reader.readInt(byteCount: 4, .littleEndian)
        guard size <= reader.remaining else {
            throw .malformed("chunk '\(fourCC)' of \(size) bytes runs past the end of the RIFF container")
        }
        let payload = try reader.readWindow(size)
        if size % 2 == 1, !reader.isAtEnd { try reader.skip(1) }
        return (fourCC, payload)
    }
}
