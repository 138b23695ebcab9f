/// Tells HEIC from AVIF from other ISO media files (MP4 video) by the brands of the `ftyp` box.
enum HEIFBrands {
    /// What the brands say.
    enum Outcome: Equatable {
        case image(ImageFormat)
        /// The `ftyp` box is not complete yet, and the major brand alone does not decide.
        case needMoreBytes
        /// An ISO media file of another kind, named by its major brand.
        case otherMedia(majorBrand: String)
    }

    private static let avifBrands: Set<String> = ["avif", "avis"]
    private static let hevcBrands: Set<String> = ["heic", "heix", "hevc", "hevx", "heim", "heis"]
    /// Brands of HEIF without a codec: still images (`mif1`) or sequences (`msf1`).
    private static let genericHEIFBrands: Set<String> = ["mif1", "msf1"]

    /// Classifies data that starts with an `ftyp` box (bytes 4..<8 are `ftyp`).
    static func classify(ftypPrefix bytes: [UInt8]) -> Outcome {
        guard bytes.count >= 12 else { return .needMoreBytes }
        let major = FourCC.text(bytes[8..<12])
        if avifBrands.contains(major) { return .image(.avif) }
        if hevcBrands.contains(major) { return .image(.heic) }
        let boxSize = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        // Real ftyp boxes list a handful of brands; a huge one is not worth waiting for.
        guard (16...4096).contains(boxSize) else { return .otherMedia(majorBrand: major) }
        guard bytes.count >= boxSize else { return .needMoreBytes }
        let compatible = Set(stride(from: 16, to: boxSize - 3, by: 4).map { FourCC.text(bytes[$0..<($0 + 4)]) })
        let hasAVIF = !compatible.isDisjoint(with: avifBrands)
        let hasHEVC = !compatible.isDisjoint(with: hevcBrands)
        if hasAVIF && !hasHEVC { return .image(.avif) }
        if hasHEVC || genericHEIFBrands.contains(major) || !compatible.isDisjoint(with: genericHEIFBrands) { return .image(.heic) }
        return .otherMedia(majorBrand: major)
    }
}
