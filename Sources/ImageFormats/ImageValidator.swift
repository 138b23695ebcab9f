import Foundation

/// Checks that downloaded bytes are a well-formed image of a supported format and within size
/// limits, without decoding pixels, so the cache never stores (or hands a decoder) an error page,
/// a cut-off download or a decompression bomb.
///
/// Validation runs in stages, earliest first (see ``ValidationStage``): sniff the magic bytes, read
/// the header for the size, apply the pixel limit, then walk the file's structure (chunk lengths and
/// CRCs, markers, blocks, boxes) to its end marker.
///
/// ```swift
/// let validator = ImageValidator()                  // 100 Mpx limit
/// let info = try validator.validate(data)           // .png, 386 x 395
/// switch validator.inspectPrefix(firstChunk) {      // while downloading
/// case .refused(let error): task.cancel(); throw error
/// case .needMoreBytes, .accepted: break
/// }
/// ```
public struct ImageValidator: Sendable {
    /// The most pixels (width × height) the image, and each of its frames or pages, may declare:
    /// 100 megapixels by default, about 400 MB once decoded as RGBA.
    public var maxPixelCount: Int = 100_000_000

    /// The largest SVG document accepted, in bytes after gzip is undone: 8 MiB by default.
    public var svgByteLimit: Int = 8 << 20

    /// The most bytes a PNG's compressed text and ICC profile chunks (`zTXt`, compressed `iTXt`,
    /// `iCCP`) may inflate to, all together: 1 MiB by default. Decoders inflate them when they read
    /// the header, before any pixel, so a small file of such chunks is a decompression bomb.
    public var inflatedMetadataByteLimit: Int = 1 << 20

    /// A validator with the default limits, or the ones given.
    public init(maxPixelCount: Int = 100_000_000, svgByteLimit: Int = 8 << 20, inflatedMetadataByteLimit: Int = 1 << 20) {
        self.maxPixelCount = maxPixelCount
        self.svgByteLimit = svgByteLimit
        self.inflatedMetadataByteLimit = inflatedMetadataByteLimit
    }

    /// A validator with `limits`, but `maxPixelCount` pixels at most: for an image inside another.
    init(limits: ValidationLimits, maxPixelCount: Int) {
        self.init(maxPixelCount: maxPixelCount, svgByteLimit: limits.svgByteLimit, inflatedMetadataByteLimit: limits.inflatedMetadataByteLimit)
    }

    private var limits: ValidationLimits {
        ValidationLimits(maxPixelCount: maxPixelCount, svgByteLimit: svgByteLimit, inflatedMetadataByteLimit: inflatedMetadataByteLimit)
    }

    /// The format the magic bytes at the start of `prefix` announce, or nil when they match no
    /// supported format (or the prefix is too short to tell).
    public func sniff(_ prefix: some DataProtocol) -> ImageFormat? {
        let bytes = [UInt8](prefix.prefix(FormatSniffer.window))
        guard case let .image(format) = FormatSniffer.classify(bytes, isComplete: false) else { return nil }
        return format
    }

    /// Judges the first bytes of a download: the format, the header and the pixel limit, but not the
    /// structure, which needs the whole file.
    ///
    /// Call it as bytes arrive until the verdict is not ``PrefixVerdict/needMoreBytes``: most formats
    /// decide within the first few hundred bytes; a TIFF whose directory sits at the end needs them all.
    public func inspectPrefix(_ prefix: Data) -> PrefixVerdict {
        inspect([UInt8](prefix), isComplete: false)
    }

    /// The size and format from the header of `data` (a prefix is enough), or nil when the prefix
    /// ends before the header does.
    ///
    /// - Throws: ``ImageValidationError`` from the sniff, header or policy stage.
    public func headerInfo(_ data: Data) throws(ImageValidationError) -> ImageInfo? {
        switch inspectPrefix(data) {
        case .needMoreBytes: return nil
        case let .refused(error): throw error
        case let .accepted(info): return info
        }
    }

    /// Fully checks a complete file: sniff, header, pixel limit, and the walk of its structure to the end.
    ///
    /// - Throws: ``ImageValidationError``; its ``ImageValidationError/stage`` says how far the check got.
    public func validate(_ data: Data) throws(ImageValidationError) -> ImageInfo {
        try validate(data, limits: limits)
    }

    /// ``validate(_:)``, then what only decoding would otherwise show: a PNG's zlib stream (its
    /// checksum, its size, each row's filter), a GIF's LZW codes, and what an SVG would draw with its
    /// references expanded. For callers about to decode the image; costs an inflate of a PNG's data.
    ///
    /// - Throws: ``ImageValidationError``; damage found this way is a structure-stage
    ///   ``ImageValidationError/corruptStructure(format:reason:)``, and a costly SVG a policy-stage
    ///   ``ImageValidationError/refusedContent(format:reason:)``.
    public func validateForDecoding(_ data: Data) throws(ImageValidationError) -> ImageInfo {
        var limits = limits
        limits.checksImageData = true
        return try validate(data, limits: limits)
    }

    private func validate(_ data: Data, limits: ValidationLimits) throws(ImageValidationError) -> ImageInfo {
        let bytes = [UInt8](data)
        let header: ImageInfo
        switch inspect(bytes, isComplete: true) {
        case let .accepted(info): header = info
        case let .refused(error): throw error
        case .needMoreBytes: throw .notAnImage(reason: "only \(bytes.count) bytes, too short for any image")
        }
        do {
            return try header.format.parser.walkStructure(ByteReader(bytes), header: header, limits: limits)
        } catch {
            throw error.structureError(format: header.format, byteCount: bytes.count)
        }
    }

    /// Sniffs and reads the header; `isComplete` says whether running out of bytes means "wait" or "refuse".
    private func inspect(_ bytes: [UInt8], isComplete: Bool) -> PrefixVerdict {
        let format: ImageFormat
        switch FormatSniffer.classify(bytes, isComplete: isComplete) {
        case let .image(sniffed): format = sniffed
        case let .refused(error): return .refused(error)
        case .needMoreBytes: return .needMoreBytes
        }
        do {
            return .accepted(try format.parser.readHeader(ByteReader(bytes), limits: limits))
        } catch {
            switch error {
            case .needMoreBytes:
                guard isComplete else { return .needMoreBytes }
                return .refused(.invalidHeader(format: format, reason: "the data ends after \(bytes.count) bytes, inside the header"))
            case let .malformed(reason): return .refused(.invalidHeader(format: format, reason: reason))
            case let .refused(refusal): return .refused(refusal)
            }
        }
    }
}
