/// A device-independent bitmap's header, as a BMP file holds it after its file header and an
/// icon's bitmap entry at its start: OS/2's BITMAPCOREHEADER (12 bytes) and 2.x headers (16, 64),
/// Windows' BITMAPINFOHEADER (40) to BITMAPV5HEADER (124). The one reader of its fields.
struct DIBHeader {
    /// How the pixel array is coded (the header's compression field).
    enum Compression: Equatable {
        case none, runLength8, runLength4, bitFields, alphaBitFields
    }

    /// The header's own size, which says which of the layouts above it is.
    var byteCount: Int
    var width: Int
    /// The height field's magnitude; an icon entry's counts its colour rows and its mask rows together.
    var height: Int
    /// Whether rows are stored top row first (a negative height field); bottom row first otherwise.
    var isTopDown: Bool
    var bitsPerPixel: Int
    var compression: Compression
    /// The pixel array's size in bytes as declared; 0 when unstated (allowed without compression).
    var imageByteCount: Int
    /// The colour table entries declared; 0 means the default, 2^bitsPerPixel at 8 bits or fewer.
    var declaredColourCount: Int
    /// The channel masks the header itself holds (BITMAPV2HEADER and later; alpha from V3), nil
    /// when it holds none.
    var headerMasks: BitmapLayout.Masks?

    private static let uncompressed: UInt32 = 0, rle8: UInt32 = 1, rle4: UInt32 = 2
    private static let bitFields: UInt32 = 3, alphaBitFields: UInt32 = 6
    private static let embeddedJPEG: UInt32 = 4, embeddedPNG: UInt32 = 5

    /// Bytes per colour table entry: blue, green, red, and a reserved byte except in OS/2 1.x files.
    var colourEntryByteCount: Int { byteCount == 12 ? 3 : 4 }

    /// The colour table entries the header implies: those declared, or the default.
    var colourCount: Int {
        if declaredColourCount > 0 { return declaredColourCount }
        return bitsPerPixel <= 8 ? 1 << bitsPerPixel : 0
    }

    /// Reads the header at `reader`'s cursor and checks the fields that decide the layout, leaving
    /// the cursor after the header.
    static func read(_ reader: inout ByteReader) throws(ParseFailure) -> DIBHeader {
        let headerStart = reader.relativeOffset
        let byteCount = try reader.readInt(byteCount: 4, .littleEndian)
        let width: Int, signedHeight: Int32, planes: UInt16, bitsPerPixel: Int
        var compressionField = uncompressed, imageByteCount = 0, declaredColourCount = 0
        var headerMasks: BitmapLayout.Masks?
        switch byteCount {
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
            if byteCount >= 40 {
                compressionField = try reader.readUInt32(.littleEndian)
                imageByteCount = try reader.readInt(byteCount: 4, .littleEndian)
                try reader.skip(8)  // Resolution, unused.
                declaredColourCount = try reader.readInt(byteCount: 4, .littleEndian)
                try reader.skip(4)  // Important colours, unused.
            }
            // OS/2's 64-byte header continues with fields of its own; the others with masks.
            if [52, 56, 108, 124].contains(byteCount) {
                let red = try reader.readUInt32(.littleEndian), green = try reader.readUInt32(.littleEndian)
                let blue = try reader.readUInt32(.littleEndian)
                let alpha = byteCount >= 56 ? try reader.readUInt32(.littleEndian) : 0
                headerMasks = BitmapLayout.Masks(red: red, green: green, blue: blue, alpha: alpha)
            }
        default:
            throw .malformed("unknown DIB header size \(byteCount)")
        }
        try reader.seek(toRelative: try Checked.add(headerStart, byteCount))
        // A negative height means rows are stored top-down; the magnitude is the height.
        guard let height = Int(exactly: signedHeight.magnitude), width > 0, height > 0 else {
            throw .malformed("the bitmap declares \(width)x\(signedHeight)")
        }
        guard planes == 1 else { throw .malformed("the bitmap declares \(planes) colour planes instead of 1") }
        let isTopDown = signedHeight < 0
        let compression: Compression
        switch compressionField {
        case uncompressed:
            guard [1, 2, 4, 8, 16, 24, 32].contains(bitsPerPixel) else { throw .malformed("\(bitsPerPixel) bits per pixel") }
            compression = .none
        case rle8, rle4:
            guard bitsPerPixel == (compressionField == rle8 ? 8 : 4), !isTopDown else {
                throw .malformed("run-length compression with \(bitsPerPixel) bits per pixel\(isTopDown ? ", stored top-down" : "")")
            }
            compression = compressionField == rle8 ? .runLength8 : .runLength4
        case bitFields, alphaBitFields:
            guard [16, 32].contains(bitsPerPixel) else { throw .malformed("bit-field compression with \(bitsPerPixel) bits per pixel") }
            compression = compressionField == bitFields ? .bitFields : .alphaBitFields
        case embeddedJPEG, embeddedPNG:
            throw .refused(.unsupportedFormat(name: "BMP wrapping a JPEG or PNG (a printer format)"))
        default:
            throw .malformed("unknown compression \(compressionField)")
        }
        return DIBHeader(
            byteCount: byteCount, width: width, height: height, isTopDown: isTopDown, bitsPerPixel: bitsPerPixel,
            compression: compression, imageByteCount: imageByteCount, declaredColourCount: declaredColourCount,
            headerMasks: headerMasks)
    }

    /// The channel masks of a 16-, 24- or 32-bit bitmap, reading those that follow a header too
    /// short to hold them (cursor right after the header; left after the masks). Without bit-field
    /// compression the masks are fixed: 5-5-5 at 16 bits, 8-8-8 at 24, and at 32 the unused high
    /// byte taken as alpha (the decoder treats an alpha that is zero everywhere as filler).
    func masks(_ reader: inout ByteReader) throws(ParseFailure) -> BitmapLayout.Masks {
        switch (compression, bitsPerPixel) {
        case (.bitFields, _), (.alphaBitFields, _):
            if let headerMasks { return headerMasks }
            let red = try reader.readUInt32(.littleEndian), green = try reader.readUInt32(.littleEndian)
            let blue = try reader.readUInt32(.littleEndian)
            let alpha = compression == .alphaBitFields ? try reader.readUInt32(.littleEndian) : 0
            return BitmapLayout.Masks(red: red, green: green, blue: blue, alpha: alpha)
        case (_, 16):
            return BitmapLayout.Masks(red: 0x7C00, green: 0x03E0, blue: 0x001F, alpha: 0)
        case (_, 24):
            return BitmapLayout.Masks(red: 0xFF_0000, green: 0xFF00, blue: 0xFF, alpha: 0)
        default:
            return BitmapLayout.Masks(red: 0xFF_0000, green: 0xFF00, blue: 0xFF, alpha: 0xFF00_0000)
        }
    }
}
