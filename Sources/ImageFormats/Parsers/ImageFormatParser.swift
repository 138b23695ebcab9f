/// What each format's parser provides to ``ImageValidator``: a header read that works on a download
/// prefix, and a structure walk over the complete file.
protocol ImageFormatParser {
    /// Reads the header up to the image size and checks each size against `limits` as soon as it is read.
    ///
    /// Throws ``ParseFailure/needMoreBytes`` when `reader` ends too early, so the same code serves a
    /// prefix of a download and a complete file.
    static func readHeader(_ reader: ByteReader, limits: ValidationLimits) throws(ParseFailure) -> ImageInfo

    /// Walks the whole file after a successful ``readHeader(_:limits:)`` and returns the final facts
    /// (frame count, animation), never decoding pixels.
    static func walkStructure(_ reader: ByteReader, header: ImageInfo, limits: ValidationLimits) throws(ParseFailure) -> ImageInfo
}

extension ImageFormat {
    /// The parser for this format.
    var parser: any ImageFormatParser.Type {
        switch self {
        case .png: PNGParser.self
        case .jpeg: JPEGParser.self
        case .gif: GIFParser.self
        case .webp: WebPParser.self
        case .heic, .avif: HEIFParser.self
        case .bmp: BMPParser.self
        case .tiff: TIFFParser.self
        case .ico: ICOParser.self
        case .svg: SVGParser.self
        }
    }
}
