/// Recognises an image format from its first bytes (magic numbers), never from a name or a header.
///
/// It also names what the data is when it is *not* a supported image (an HTML error page, JSON,
/// a gzip-compressed PNG, a TGA), because that tells the caller what went wrong upstream.
enum FormatSniffer {
    /// How many leading bytes sniffing looks at; more are never needed.
    static let window = 64 * 1024
    /// Below this many bytes of an unfinished download, a non-match may still become a match.
    private static let minimumDecisiveLength = 32

    private static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    private static let dibHeaderSizes: Set<UInt32> = [12, 16, 40, 52, 56, 64, 108, 124]

    /// Classifies `bytes`; `isComplete` says whether they are the whole file or a download prefix.
    static func classify(_ bytes: [UInt8], isComplete: Bool) -> SniffOutcome {
        if bytes.isEmpty {
            return isComplete ? .refused(.notAnImage(reason: "the body is empty")) : .needMoreBytes
        }
        if let outcome = imageMagic(bytes, isComplete: isComplete) { return outcome }
        if let name = UnsupportedFormatSniffer.name(of: bytes) { return .refused(.unsupportedFormat(name: name)) }
        if !isComplete && bytes.count < minimumDecisiveLength { return .needMoreBytes }
        if let name = cutOffSignature(bytes) {
            return .refused(.notAnImage(reason: "only \(bytes.count) bytes, the start of a \(name) signature: the download was cut off"))
        }
        if let outcome = markup(bytes, isComplete: isComplete) { return outcome }
        return .refused(.notAnImage(reason: NonImageDescriber.describe(bytes)))
    }

    /// The outcome for data whose magic bytes belong to a supported format, or to a damaged copy of one.
    private static func imageMagic(_ bytes: [UInt8], isComplete: Bool) -> SniffOutcome? {
        if bytes.starts(with: pngSignature) { return .image(.png) }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]), bytes.count >= 8 {
            return .refused(.notAnImage(reason: "the PNG signature is damaged, as by a text-mode CR/LF conversion"))
        }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .image(.jpeg) }
        if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) { return .image(.gif) }
        if bytes.starts(with: Array("GIF8".utf8)), bytes.count >= 6 {
            return .refused(.notAnImage(reason: "the GIF signature \(FourCC.text(bytes[0..<6])) is neither GIF87a nor GIF89a"))
        }
        if bytes.starts(with: Array("RIFF".utf8)), bytes.count >= 12 {
            let formType = bytes[8..<12]
            if formType.elementsEqual("WEBP".utf8) { return .image(.webp) }
            if formType.elementsEqual("ACON".utf8) { return .refused(.unsupportedFormat(name: "ANI (animated cursor)")) }
            return .refused(.notAnImage(reason: "a RIFF file of type '\(FourCC.text(formType))', not WebP"))
        }
        if bytes.count >= 8, bytes[4..<8].elementsEqual("ftyp".utf8) { return isoMedia(bytes, isComplete: isComplete) }
        if bytes.starts(with: [0x49, 0x49, 0x2A, 0x00]) || bytes.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) { return .image(.tiff) }
        if bytes.starts(with: [0x00, 0x00, 0x01, 0x00]) { return .image(.ico) }
        if bytes.starts(with: Array("BM".utf8)) {
            if bytes.count < 18 { return isComplete ? nil : .needMoreBytes }
            let headerSize = UInt32(bytes[14]) | UInt32(bytes[15]) << 8 | UInt32(bytes[16]) << 16 | UInt32(bytes[17]) << 24
            if dibHeaderSizes.contains(headerSize) { return .image(.bmp) }
        }
        if GzipMember.hasMagic(bytes) { return gzip(bytes, isComplete: isComplete) }
        return nil
    }

    /// Signatures a complete file may be cut off inside, for a precise message.
    private static let signatures: [(bytes: [UInt8], name: String)] = [
        (pngSignature, "PNG"), ([0xFF, 0xD8, 0xFF], "JPEG"), (Array("GIF89a".utf8), "GIF"), (Array("GIF87a".utf8), "GIF"),
        (Array("RIFF".utf8), "WebP"), ([0x49, 0x49, 0x2A, 0x00], "TIFF"), ([0x4D, 0x4D, 0x00, 0x2A], "TIFF"),
    ]

    /// The format whose signature `bytes` are a proper beginning of (at least two bytes).
    private static func cutOffSignature(_ bytes: [UInt8]) -> String? {
        guard bytes.count >= 2 else { return nil }
        return signatures.first { $0.bytes.count > bytes.count && $0.bytes.starts(with: bytes) }?.name
    }

    /// HEIC, AVIF, or another ISO media file (an MP4 video), by the `ftyp` brands.
    private static func isoMedia(_ bytes: [UInt8], isComplete: Bool) -> SniffOutcome {
        switch HEIFBrands.classify(ftypPrefix: bytes) {
        case let .image(format): .image(format)
        case .needMoreBytes: isComplete ? .refused(.notAnImage(reason: "an ISO media file cut off inside its ftyp box")) : .needMoreBytes
        case let .otherMedia(brand): .refused(.notAnImage(reason: "an ISO media file with brand '\(brand)', such as an MP4 video, not a HEIF or AVIF image"))
        }
    }

    /// SVGZ, or gzip-compressed data that a server forgot to mark with `Content-Encoding`.
    private static func gzip(_ bytes: [UInt8], isComplete: Bool) -> SniffOutcome {
        guard let inner = GzipMember.decompressPrefix(bytes, outputLimit: window) else {
            return .refused(.notAnImage(reason: "broken gzip-compressed data"))
        }
        if inner.starts(with: pngSignature) {
            return .refused(.notAnImage(reason: "a gzip-compressed PNG: the Content-Encoding was not undone"))
        }
        switch XMLProlog.findRoot(inner) {
        case let .root(root) where root.name == "svg": return .image(.svg)
        case .needMoreBytes where !isComplete && inner.count < window: return .needMoreBytes
        default: return .refused(.notAnImage(reason: "gzip-compressed data that is not an SVG image"))
        }
    }

    /// SVG, or the markup of an error page (HTML, XML) in its place.
    private static func markup(_ bytes: [UInt8], isComplete: Bool) -> SniffOutcome? {
        switch XMLProlog.findRoot(bytes, limit: window) {
        case let .root(root):
            if root.name == "svg" { return .image(.svg) }
            if root.isHTMLDoctype || root.name.lowercased() == "html" {
                return .refused(.notAnImage(reason: "an HTML page, such as an error page"))
            }
            return .refused(.notAnImage(reason: "a markup document whose root element is <\(root.name)>, not <svg>"))
        case .needMoreBytes:
            if !isComplete && bytes.count < window { return .needMoreBytes }
            return .refused(.notAnImage(reason: "markup whose root element never starts"))
        case .notMarkup:
            return nil
        }
    }
}
