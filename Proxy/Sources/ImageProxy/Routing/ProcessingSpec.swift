import ImageDecoding

/// The processing segment of a proxy URL: an operation, then optionally a comma and an output format.
///
/// ```
/// original          the source's bytes as they are (no decode)
/// fit:256x256       inside 256 × 256, aspect ratio kept
/// fill:256x256      covering 256 × 256, centred and cropped
/// max:512           at most 512 pixels on the longer side
/// fit:256x256,webp  the same, encoded as WebP (jpeg, png, webp)
/// ```
///
/// Sizes are whole pixels from 1 to ``maxSide``; an image is never enlarged. Without a format,
/// the answer is the stored thumbnail's (JPEG, or PNG for an image with transparency), unless the
/// request's `Accept` rules that out (see `OutputFormat.negotiate(explicit:stored:accept:)`).
public struct ProcessingSpec: Sendable, Hashable {
    /// What the pipeline makes; nil for `original` (the source's bytes, never decoded).
    public var processing: ImageProcessing?
    /// The format asked for in the URL, if any.
    public var format: EncodedFormat?

    /// The largest side a URL may ask for, so that a URL cannot ask for a gigapixel canvas.
    public static let maxSide = 4096

    /// A spec from its parts.
    public init(processing: ImageProcessing?, format: EncodedFormat? = nil) {
        self.processing = processing
        self.format = format
    }

    /// Parses a processing segment.
    /// - Throws: ``ProxyRequestError/badProcessing(_:)``, saying what is wrong.
    public init(parsing text: Substring) throws(ProxyRequestError) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count) else { throw .badProcessing("at most one ',<format>' after the operation") }
        if parts.count == 2 {
            guard let format = EncodedFormat(rawValue: String(parts[1])) else {
                throw .badProcessing("unknown format '\(parts[1])'; use jpeg, png or webp")
            }
            self.format = format
        }
        let operation = parts[0]
        if operation == "original" {
            processing = nil
            return
        }
        let pieces = operation.split(separator: ":", maxSplits: 1)
        guard pieces.count == 2 else { throw .badProcessing("'\(operation)' is not original, fit:WxH, fill:WxH or max:N") }
        switch pieces[0] {
        case "fit", "fill":
            let size = pieces[1].split(separator: "x")
            guard size.count == 2, let width = Self.side(size[0]), let height = Self.side(size[1]) else {
                throw .badProcessing("'\(pieces[1])' is not WxH with sides from 1 to \(Self.maxSide)")
            }
            processing = .resized(width: width, height: height, mode: pieces[0] == "fit" ? .fit : .fill)
        case "max":
            guard let side = Self.side(pieces[1]) else {
                throw .badProcessing("'\(pieces[1])' is not a size from 1 to \(Self.maxSide)")
            }
            processing = .thumbnail(maxPixelSize: side)
        default:
            throw .badProcessing("unknown operation '\(pieces[0])'; use original, fit, fill or max")
        }
    }

    private static func side(_ text: Substring) -> Int? {
        guard text.allSatisfy(\.isASCII), let value = Int(text), (1...maxSide).contains(value) else { return nil }
        return value
    }

    /// The segment as a URL writes it.
    public var text: String {
        let operation =
            switch processing {
            case nil, .original: "original"
            case let .thumbnail(maxPixelSize): "max:\(maxPixelSize)"
            case let .resized(width, height, mode): "\(mode.rawValue):\(width)x\(height)"
            }
        return format.map { "\(operation),\($0.rawValue)" } ?? operation
    }
}
