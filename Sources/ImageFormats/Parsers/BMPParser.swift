/// Windows bitmap: a 14-byte file header, a DIB header (12 to 124 bytes), an optional colour table
/// or bit masks, then the pixel array at the offset the file header gives.
enum BMPParser: ImageFormatParser {
    /// The fields of the file and DIB headers that matter for size and layout.
    private struct Header {
        var pixelDataOffset: Int
        var dibHeaderSize: Int
        var width: Int
        var height: Int
        var bitsPerPixel: Int
        var compression: UInt32
        var imageByteCount: Int
    }

    private static let uncompressed: UInt32 = 0, rle8: UInt32 = 1, rle4: UInt32 = 2
    private static let bitFields: UInt32 = 3, alphaBitFields: UInt32 = 6
    private static let embeddedJPEG: UInt32 = 4, embeddedPNG: UInt32 = 5
    private static let fileHeaderSize = 14

    static func readHeader(_ reader: ByteReader, limits: ValidationLimits) throws(ParseFailure) -> ImageInfo {
        let header = try readHeaders(reader)
        try limits.checkPixels(.bmp, width: header.width, height: header.height)
        return ImageInfo(format: .bmp, pixelWidth: header.width, pixelHeight: header.height)
    }

    static func walkStructure(_ reader: ByteReader, header info: ImageInfo, limits: ValidationLimits) throws(ParseFailure) -> ImageInfo {
        let header = try readHeaders(reader)
        guard header.pixelDataOffset >= fileHeaderSize + header.dibHeaderSize else {
            throw .malformed("the pixel data offset \(header.pixelDataOffset) points into the headers")
        }
        guard header.pixelDataOffset <= reader.end else {
            throw .refused(.truncated(format: .bmp, reason: "the pixel data offset \(header.pixelDataOffset) lies beyond the end of the \(reader.end)-byte file"))
        }
        let available = reader.end - header.pixelDataOffset
        let needed: Int
        switch header.compression {
        case uncompressed, bitFields, alphaBitFields:
            // Rows are padded to whole 32-bit words.
            let rowBits = try Checked.add(try Checked.multiply(header.width, header.bitsPerPixel), 31)
            needed = try Checked.multiply(rowBits / 32 * 4, header.height)
        default:
            needed = header.imageByteCount  // Run-length data declares its own size (0 when unknown).
        }
        guard needed <= available else {
            throw .refused(.truncated(format: .bmp, reason: "the pixel array needs \(needed) bytes but the file has \(available) after its offset"))
        }
        return ImageInfo(format: .bmp, pixelWidth: header.width, pixelHeight: header.height, isAnimated: false, frameCount: 1)
    }

    /// Reads the file header and the DIB header, checking the fields that decide the layout.
    private static func readHeaders(_ reader: ByteReader) throws(ParseFailure) -> Header {
        var reader = reader
        try reader.skip(10)  // "BM", the file size (often wrong, so unused), two reserved fields.
        let pixelDataOffset = try reader.readInt(byteCount: 4, .littleEndian)
        let dibHeaderSize = try reader.readInt(byteCount: 4, .littleEndian)
        let width: Int, signedHeight: Int32, planes: UInt16, bitsPerPixel: Int
        var compression = uncompressed, imageByteCount = 0
        switch dibHeaderSize {
        case 12:  // OS/2 BITMAPCOREHEADER: unsigned 16-bit sizes.
            width = Int(try reader.readUInt16(.littleEndian))
            signedHeight = Int32(try reader.readUInt16(.littleEndian))
            planes = try reader.readUInt16(.littleEndian)
            bitsPerPixel = Int(try reader.readUInt16(.littleEndian))
        case 16, 40, 52, 56, 64, 108, 124:
            width = Int(Int32(bitPattern: try reader.readUInt32(.littleEndian)))
            signedHeight = Int32(bitPattern: try reader.readUInt32(.littleEndian))
            planes = try reader.readUInt16(.littleEndian)
            bitsPerPixel = Int(try reader.readUInt16(.littleEndian))
            if dibHeaderSize >= 40 {
                compression = try reader.readUInt32(.littleEndian)
                imageByteCount = try reader.readInt(byteCount: 4, .littleEndian)
            }
        default:
            throw .malformed("unknown DIB header size \(dibHeaderSize)")
        }
        // A negative height means rows are stored top-down; the magnitude is the height.
        guard let height = Int(exactly: signedHeight.magnitude), width > 0, height > 0 else {
            throw .malformed("the bitmap declares \(width)x\(signedHeight)")
        }
        guard planes == 1 else { throw .malformed("the bitmap declares \(planes) colour planes instead of 1") }
        let isTopDown = signedHeight < 0
        switch compression {
        case uncompressed:
            guard [1, 2, 4, 8, 16, 24, 32].contains(bitsPerPixel) else { throw .malformed("\(bitsPerPixel) bits per pixel") }
        case rle8, rle4:
            guard bitsPerPixel == (compression == rle8 ? 8 : 4), !isTopDown else {
                throw .malformed("run-length compression with \(bitsPerPixel) bits per pixel\(isTopDown ? ", stored top-down" : "")")
            }
        case bitFields, alphaBitFields:
            guard [16, 32].contains(bitsPerPixel) else { throw .malformed("bit-field compression with \(bitsPerPixel) bits per pixel") }
        case embeddedJPEG, embeddedPNG:
            throw .refused(.unsupportedFormat(name: "BMP wrapping a JPEG or PNG (a printer format)"))
        default:
            throw .malformed("unknown compression \(compression)")
        }
        return Header(pixelDataOffset: pixelDataOffset, dibHeaderSize: dibHeaderSize, width: width, height: height,
                      bitsPerPixel: bitsPerPixel, compression: compression, imageByteCount: imageByteCount)
    }
}
