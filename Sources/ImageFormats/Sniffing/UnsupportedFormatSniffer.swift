/// Recognises image formats the cache refuses, so the error names them instead of "not an image".
enum UnsupportedFormatSniffer {
    private static let magics: [(bytes: [UInt8], name: String)] = [
        (Array("8BPS".utf8), "Photoshop (PSD)"),
        (Array("qoif".utf8), "QOI"),
        ([0xFF, 0x0A], "JPEG XL"),
        ([0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A], "JPEG XL"),
        ([0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A], "JPEG 2000"),
        ([0xFF, 0x4F, 0xFF, 0x51], "JPEG 2000"),
        ([0x76, 0x2F, 0x31, 0x01], "OpenEXR"),
        (Array("DDS ".utf8), "DirectDraw Surface (DDS)"),
        (Array("icns".utf8), "Apple icon (ICNS)"),
        (Array("#?RADIANCE".utf8), "Radiance HDR"),
        (Array("#?RGBE".utf8), "Radiance HDR"),
        (Array("farbfeld".utf8), "farbfeld"),
        (Array("/* XPM */".utf8), "XPM"),
        ([0x49, 0x49, 0x2B, 0x00], "BigTIFF"),
        ([0x4D, 0x4D, 0x00, 0x2B], "BigTIFF"),
    ]

    /// The format's name when `bytes` start like an image format the cache does not accept.
    static func name(of bytes: [UInt8]) -> String? {
        if let match = magics.first(where: { bytes.starts(with: $0.bytes) }) { return match.name }
        if isNetpbm(bytes) { return "Netpbm (PBM/PGM/PPM)" }
        if isXBM(bytes) { return "XBM" }
        if isTGA(bytes) { return "TGA" }
        if isCursor(bytes) { return "CUR (cursor)" }
        return nil
    }

    /// An icon directory of type 2 whose first entry is plausible (reserved byte 0, data after the directory).
    private static func isCursor(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 22, bytes.starts(with: [0x00, 0x00, 0x02, 0x00]) else { return false }
        let count = Int(bytes[4]) | Int(bytes[5]) << 8
        let firstOffset = Int(bytes[18]) | Int(bytes[19]) << 8 | Int(bytes[20]) << 16 | Int(bytes[21]) << 24
        return (1...256).contains(count) && bytes[9] == 0 && firstOffset >= 6 + 16 * count
    }

    /// `P1` to `P7` (or `PF`/`Pf`) followed by white space or a comment.
    private static func isNetpbm(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 3, bytes[0] == UInt8(ascii: "P") else { return false }
        let kind = bytes[1]
        let isKnown = (UInt8(ascii: "1")...UInt8(ascii: "7")).contains(kind) || kind == UInt8(ascii: "F") || kind == UInt8(ascii: "f")
        return isKnown && (XMLProlog.isXMLSpace(bytes[2]) || bytes[2] == UInt8(ascii: "#"))
    }

    /// C source that defines `..._width`, as XBM files are.
    private static func isXBM(_ bytes: [UInt8]) -> Bool {
        guard bytes.starts(with: Array("#define ".utf8)) else { return false }
        let firstLine = bytes.prefix(256).prefix { $0 != 0x0A }
        return XMLProlog.find(Array("_width".utf8), in: Array(firstLine), from: 0, end: firstLine.count) != nil
    }

    /// A TGA header: TGA has no magic number, so this checks that every field has a legal value,
    /// which random bytes and text almost never do.
    private static func isTGA(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 18 else { return false }
        let colorMapType = bytes[1], imageType = bytes[2]
        let width = Int(bytes[12]) | Int(bytes[13]) << 8
        let height = Int(bytes[14]) | Int(bytes[15]) << 8
        let depth = bytes[16], descriptor = bytes[17]
        guard colorMapType <= 1, [1, 2, 3, 9, 10, 11].contains(imageType) else { return false }
        guard [1, 9].contains(imageType) == (colorMapType == 1) else { return false }
        guard width > 0, height > 0, [8, 15, 16, 24, 32].contains(depth), descriptor & 0xC0 == 0 else { return false }
        return colorMapType == 1 || bytes[3..<8].allSatisfy { $0 == 0 }
    }
}
