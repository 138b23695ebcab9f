import Foundation

/// Why the validator refused some data, with a sentence that says what to do about it.
public enum ImageValidationError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The bytes are not an image at all (an error page, JSON, random bytes, an empty body).
    case notAnImage(reason: String)
    /// The bytes are an image in a format the cache refuses (TGA, PPM, XBM, JPEG XL...).
    case unsupportedFormat(name: String)
    /// The header that gives the size is missing or invalid.
    case invalidHeader(format: ImageFormat, reason: String)
    /// The image (or one of its frames) declares more pixels than ``ImageValidator/maxPixelCount``.
    case tooManyPixels(format: ImageFormat, width: Int, height: Int, limit: Int)
    /// The image uses something refused on principle: XML entities, expanding past a size limit.
    case refusedContent(format: ImageFormat, reason: String)
    /// A chunk, marker, block or box is inconsistent (a length, a checksum, an order).
    case corruptStructure(format: ImageFormat, reason: String)
    /// The data ends before the image does: an interrupted or cut-off download.
    case truncated(format: ImageFormat, reason: String)

    /// The validation stage that found the problem.
    public var stage: ValidationStage {
        switch self {
        case .notAnImage, .unsupportedFormat: .sniff
        case .invalidHeader: .header
        case .tooManyPixels, .refusedContent: .policy
        case .corruptStructure, .truncated: .structure
        }
    }

    /// The format the data claims to be, when the magic bytes were recognised.
    public var format: ImageFormat? {
        switch self {
        case .notAnImage, .unsupportedFormat: nil
        case let .invalidHeader(format, _), let .tooManyPixels(format, _, _, _), let .refusedContent(format, _),
            let .corruptStructure(format, _), let .truncated(format, _):
            format
        }
    }

    /// A sentence saying what is wrong and what to do about it.
    public var description: String {
        switch self {
        case let .notAnImage(reason):
            return "The data is not an image (\(reason)); check the URL and the server's response, and do not cache it."
        case let .unsupportedFormat(name):
            return "The data is an image in the \(name) format, which the cache does not accept; ask the server for PNG, JPEG, WebP or AVIF."
        case let .invalidHeader(format, reason):
            return "The \(format.displayName) header is invalid (\(reason)); the file is damaged or not really \(format.displayName), so do not cache it."
        case let .tooManyPixels(format, width, height, limit):
            let megapixels = Double(width) * Double(height) / 1e6
            let declared = megapixels >= 10 ? String(Int(megapixels.rounded())) : String(format: "%.1f", megapixels)
            return "The \(format.displayName) image declares \(width)x\(height) pixels (\(declared) Mpx), over the limit of \(limit) pixels; decoding it could exhaust memory, so request a smaller rendition or raise ImageValidator.maxPixelCount."
        case let .refusedContent(format, reason):
            return "The \(format.displayName) image was refused: \(reason); serve a simpler file, or a raster rendition of it."
        case let .corruptStructure(format, reason):
            return "The \(format.displayName) data is corrupt (\(reason)); download it again, and give up if the server keeps sending the same bytes."
        case let .truncated(format, reason):
            return "The \(format.displayName) data is cut short (\(reason)); the download was probably interrupted, so fetch it again."
        }
    }

    /// The same sentence as ``description``, for `LocalizedError` users.
    public var errorDescription: String? { description }
}

extension ImageValidationError {
    /// The reason inside the message, for wrapping one error in another (an icon's broken PNG).
    var detail: String {
        switch self {
        case let .notAnImage(reason), let .invalidHeader(_, reason), let .refusedContent(_, reason),
            let .corruptStructure(_, reason), let .truncated(_, reason):
            reason
        case let .unsupportedFormat(name): "a \(name) image"
        case let .tooManyPixels(_, width, height, _): "\(width)x\(height) pixels"
        }
    }
}
