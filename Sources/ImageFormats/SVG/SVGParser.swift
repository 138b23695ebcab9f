/// SVG and SVGZ (gzip-compressed SVG): XML text whose root element is `<svg>`. The size comes from
/// the root's `width`/`height` or `viewBox`; the structure check is a bounded well-formedness walk.
enum SVGParser: ImageFormatParser {
    /// How much of an SVGZ is decompressed to find the root tag: enough for any real prolog.
    private static let headerInflateLimit = 256 * 1024

    static func readHeader(_ reader: ByteReader, limits: ValidationLimits) throws(ParseFailure) -> ImageInfo {
        let document: [UInt8]
        if GzipMember.hasMagic(reader.bytes) {
            guard let start = GzipMember.decompressPrefix(reader.bytes, outputLimit: headerInflateLimit) else {
                throw .malformed("the gzip-compressed data is broken")
            }
            document = start
        } else {
            document = reader.bytes
        }
        return try readRoot(document, limits: limits).info
    }

    static func walkStructure(_ reader: ByteReader, header: ImageInfo, limits: ValidationLimits) throws(ParseFailure) -> ImageInfo {
        let document = try wholeDocument(reader.bytes, limits: limits)
        let root = try readRoot(document, limits: limits)
        let checks = limits.checksImageData ? SVGRenderChecks(limits: limits, userSpaceExtent: root.userSpaceExtent) : nil
        var walker = SVGDocumentWalker(document: document, renderChecks: checks)
        try walker.walk(fromRoot: root.tagStart)
        var info = root.info
        info.frameCount = 1
        info.embeddedPixelCount = walker.embeddedPixelCount
        return info
    }

    /// The document text, decompressed when it is SVGZ, within the size limit.
    private static func wholeDocument(_ bytes: [UInt8], limits: ValidationLimits) throws(ParseFailure) -> [UInt8] {
        guard GzipMember.hasMagic(bytes) else {
            guard bytes.count <= limits.svgByteLimit else {
                throw .refused(.refusedContent(format: .svg, reason: "it is \(bytes.count) bytes, over the limit of \(limits.svgByteLimit)"))
            }
            return bytes
        }
        do {
            return try GzipMember.decompress(bytes, outputLimit: limits.svgByteLimit)
        } catch {
            switch error {
            case .needMoreInput:
                throw .refused(.truncated(format: .svg, reason: "the gzip stream ends before its data and trailer do"))
            case .outputLimitReached:
                throw .refused(.refusedContent(format: .svg, reason: "it decompresses to more than \(limits.svgByteLimit) bytes"))
            case let .malformed(reason):
                throw .malformed("the gzip-compressed data is broken: \(reason)")
            }
        }
    }

    /// Finds the root `<svg>` tag, refuses entity declarations, and reads the size.
    private static func readRoot(_ document: [UInt8], limits: ValidationLimits) throws(ParseFailure) -> (
        info: ImageInfo, tagStart: Int, userSpaceExtent: Double
    ) {
        switch XMLProlog.findRoot(document) {
        case .needMoreBytes:
            throw .needMoreBytes
        case .notMarkup:
            throw .malformed("no <svg> root element")
        case let .root(root):
            // Entities are how "billion laughs" documents expand; SVG images never need them.
            guard !root.declaresEntities else {
                throw .refused(.refusedContent(format: .svg, reason: "its DOCTYPE declares XML entities, which can expand exponentially (billion laughs)"))
            }
            guard root.name == "svg" else { throw .malformed("the root element is <\(root.name)>, not <svg>") }
            let tag = try XMLStartTag.scan(document, at: root.tagStart, collectAttributes: true)
            let size = try SVGIntrinsicSize.resolve(tag.attributes)
            try limits.checkPixels(.svg, width: size.width, height: size.height)
            let extent = max(Double(size.width), Double(size.height), SVGIntrinsicSize.viewBoxExtent(tag.attributes))
            return (ImageInfo(format: .svg, pixelWidth: size.width, pixelHeight: size.height), root.tagStart, extent)
        }
    }
}
