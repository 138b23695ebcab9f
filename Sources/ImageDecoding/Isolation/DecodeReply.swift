import Foundation

/// What a worker sends back for a job: the decoded image, or the decoder's error.
enum DecodeReply: Sendable {
    case image(DecodedImage)
    case failure(ImageDecodingError)

    var encoded: Data {
        var writer = WireWriter()
        switch self {
        case let .image(image):
            writer.integer(0)
            writer.integer(image.pixelWidth)
            writer.integer(image.pixelHeight)
            writer.integer(image.bytesPerRow)
            writer.integer(image.frameCount)
            writer.data(image.pixels)
        case let .failure(error):
            let (kind, detail): (Int, String) =
                switch error {
                case let .unsupportedFormat(detail): (1, detail)
                case let .corrupt(detail): (2, detail)
                case let .invalidProcessing(detail): (3, detail)
                case let .decoderUnavailable(detail): (4, detail)
                // Refusals and a worker's own failures are the app's to find, never a worker's to send.
                default: (2, error.description)
                }
            writer.integer(kind)
            writer.string(detail)
        }
        return writer.bytes
    }

    /// The reply `bytes` encode, or nil when they are not one (a worker that died mid-reply).
    init?(encoded bytes: Data) {
        var reader = WireReader(bytes)
        guard let kind = reader.integer() else { return nil }
        if kind == 0 {
            guard let width = reader.integer(), let height = reader.integer(), let bytesPerRow = reader.integer(),
                let frames = reader.integer(), let pixels = reader.data(), reader.isAtEnd,
                width > 0, height > 0, bytesPerRow >= width * 4, pixels.count == bytesPerRow * height
            else { return nil }
            self = .image(DecodedImage(
                pixelWidth: width, pixelHeight: height, pixelFormat: .rgba8, bytesPerRow: bytesPerRow,
                pixels: Data(pixels), frameCount: frames))
            return
        }
        guard let detail = reader.string(), reader.isAtEnd else { return nil }
        switch kind {
        case 1: self = .failure(.unsupportedFormat(detail))
        case 2: self = .failure(.corrupt(detail))
        case 3: self = .failure(.invalidProcessing(detail))
        case 4: self = .failure(.decoderUnavailable(detail))
        default: return nil
        }
    }

    init(_ result: Result<DecodedImage, ImageDecodingError>) {
        switch result {
        case let .success(image): self = .image(image)
        case let .failure(error): self = .failure(error)
        }
    }
}
