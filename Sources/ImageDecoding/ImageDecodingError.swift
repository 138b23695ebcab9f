import ImageFormats

/// Why bytes could not be decoded to an image. Each description says what happened and what to do.
public enum ImageDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes are not an image the validator accepts for decoding: not an image, over the pixel
    /// limit, damaged data that only decoding would otherwise show, or an SVG too costly to render. The validator's
    /// error says which, and at what stage.
    case invalidImage(ImageValidationError)
    /// No decoder on this platform reads the format (for example SVG where none is installed).
    case unsupportedFormat(String)
    /// The decoder found the data damaged: it reads as an image until its pixels do not.
    case corrupt(String)
    /// The processing asked for is not possible (a size of zero or less).
    case invalidProcessing(String)
    /// The decoding library could not start, or the decode worker could not be found or started.
    case decoderUnavailable(String)
    /// The decode worker process ended while decoding: a fault in a decoding library (an abort, a
    /// memory fault), which isolation kept from the app. The bytes are likely crafted to crash
    /// decoders.
    case decoderCrashed(String)
    /// The decode overran its processor time or its deadline (``DecodeIsolation``), and its worker
    /// process was stopped.
    case decodingTimedOut(String)
    /// The decode needed more memory than its worker process may use
    /// (``DecodeIsolation/workerMemoryLimitBytes``).
    case decodingExceededMemory(String)
    /// Decoding the image as `processing` asks would build `bytes` bytes of pixels, over the
    /// ``DecodeBudget``'s `limit` for it.
    case overBudget(bytes: Int, limit: Int, processing: ImageProcessing)

    public var description: String {
        switch self {
        case let .invalidImage(error):
            "The image cannot be decoded: \(error)"
        case let .unsupportedFormat(detail):
            "No decoder here reads this image (\(detail)); serve it in a common format such as JPEG, PNG or WebP."
        case let .corrupt(detail):
            "The image data is damaged and cannot be decoded (\(detail)); the origin should serve an intact file."
        case let .invalidProcessing(detail):
            "The processing asked for is not possible: \(detail)."
        case let .decoderUnavailable(detail):
            "The image decoder could not start (\(detail)); check that libvips is installed."
        case let .decoderCrashed(detail):
            "Decoding the image crashed its worker process (\(detail)); the app was not affected. Do not retry these bytes: report the image to whoever serves it."
        case let .decodingTimedOut(detail):
            "Decoding the image took too long (\(detail)) and was stopped; serve a smaller or simpler image, or raise DecodeIsolation's limits for trusted sources."
        case let .decodingExceededMemory(detail):
            "Decoding the image needed more memory than allowed (\(detail)); serve a smaller image, or raise DecodeIsolation.workerMemoryLimitBytes for trusted sources."
        case let .overBudget(bytes, limit, processing):
            "Decoding the image as \(processing.identifier) would build \(bytes) bytes of pixels, over the limit of \(limit) bytes (its size and sample depth are too large for it); request a smaller rendition, a thumbnail of a JPEG or WebP, or raise the DecodeBudget's limit."
        }
    }
}
