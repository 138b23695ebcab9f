import Foundation
import ImageFormats

/// The platform's decoder: libvips on Linux, in worker processes as ``DecodeIsolation`` says;
/// ImageIO in the app's process on Apple platforms; elsewhere every decode fails with
/// ``ImageDecodingError/decoderUnavailable(_:)``.
///
/// Bytes are validated in the caller's process first (`ImageValidator.validateForDecoding`, with
/// the pixel limit), so only bytes that passed reach a decoding library, isolated or not.
public struct PlatformImageDecoder: ImageDecoder {
    /// Where untrusted bytes are decoded: ``DecodeIsolation/automatic`` by default.
    public var isolation: DecodeIsolation

    /// The platform's decoder, isolated as ``DecodeIsolation/automatic`` says.
    public init() {
        isolation = .automatic
    }

    /// The platform's decoder, isolated as `isolation` says (Linux only).
    public init(isolation: DecodeIsolation) {
        self.isolation = isolation
    }

    public func decode(
        _ data: Data, processing: ImageProcessing, maxPixelCount: Int
    ) throws(ImageDecodingError) -> DecodedImage {
        #if canImport(CVips)
        try processing.checkPossible()
        let info = try ImageValidator.forDecoding(data, processing: processing, maxPixelCount: maxPixelCount)
        switch isolation.place(for: info.format) {
        case .inProcess:
            return try VipsDecoder().decode(validated: data, info: info, processing: processing)
        case let .worker(pool):
            let job = DecodeJob(
                data: data, info: info, processing: processing, maxPixelCount: maxPixelCount,
                cpuSeconds: isolation.cpuTimeLimit.wholeSeconds)
            return try pool.decode(job, isolation: isolation)
        case let .refused(error):
            throw error
        }
        #elseif canImport(ImageIO)
        try ImageIODecoder().decode(data, processing: processing, maxPixelCount: maxPixelCount)
        #else
        throw .decoderUnavailable("no image decoder is built for this platform")
        #endif
    }

    /// Decodes in the caller's process whatever the isolation: for bytes this app encoded itself.
    public func decodeTrusted(
        _ data: Data, processing: ImageProcessing, maxPixelCount: Int
    ) throws(ImageDecodingError) -> DecodedImage {
        #if canImport(CVips)
        try VipsDecoder().decode(data, processing: processing, maxPixelCount: maxPixelCount)
        #elseif canImport(ImageIO)
        try ImageIODecoder().decode(data, processing: processing, maxPixelCount: maxPixelCount)
        #else
        throw .decoderUnavailable("no image decoder is built for this platform")
        #endif
    }
}
