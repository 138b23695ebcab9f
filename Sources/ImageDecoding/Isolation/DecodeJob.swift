import Foundation
import ImageFormats

/// One decode a worker process runs: bytes the app already validated, what the validator found,
/// and what to make of them.
struct DecodeJob: Sendable {
    static let version = 1

    var data: Data
    var info: ImageInfo
    var processing: ImageProcessing
    var maxPixelCount: Int
    /// The processor time the worker may spend on this job before the kernel stops it.
    var cpuSeconds: Int

    /// The job as the worker reads it from its socket (after the 8-byte length the sender adds).
    var encoded: Data {
        var writer = WireWriter()
        writer.integer(Self.version)
        writer.string(info.format.rawValue)
        writer.integer(info.pixelWidth)
        writer.integer(info.pixelHeight)
        writer.integer(info.isAnimated ? 1 : 0)
        writer.integer(info.frameCount ?? -1)
        switch processing {
        case .original:
            writer.integer(0); writer.integer(0); writer.integer(0)
        case let .thumbnail(maxPixelSize):
            writer.integer(1); writer.integer(maxPixelSize); writer.integer(0)
        case let .resized(width, height, mode):
            writer.integer(mode == .fit ? 2 : 3); writer.integer(width); writer.integer(height)
        }
        writer.integer(maxPixelCount)
        writer.integer(cpuSeconds)
        writer.data(data)
        return writer.bytes
    }

    /// The job `bytes` encode, or nil when they are not one this build wrote.
    init?(encoded bytes: Data) {
        var reader = WireReader(bytes)
        guard reader.integer() == Self.version,
            let format = reader.string().flatMap(ImageFormat.init(rawValue:)),
            let width = reader.integer(), let height = reader.integer(),
            let animated = reader.integer(), let frames = reader.integer(),
            let kind = reader.integer(), let first = reader.integer(), let second = reader.integer(),
            let maxPixelCount = reader.integer(), let cpuSeconds = reader.integer(),
            let data = reader.data(), reader.isAtEnd
        else { return nil }
        let processing: ImageProcessing
        switch kind {
        case 0: processing = .original
        case 1: processing = .thumbnail(maxPixelSize: first)
        case 2: processing = .resized(width: first, height: second, mode: .fit)
        case 3: processing = .resized(width: first, height: second, mode: .fill)
        default: return nil
        }
        self.init(
            data: data,
            info: ImageInfo(format: format, pixelWidth: width, pixelHeight: height, isAnimated: animated == 1, frameCount: frames < 0 ? nil : frames),
            processing: processing, maxPixelCount: maxPixelCount, cpuSeconds: cpuSeconds)
    }

    init(data: Data, info: ImageInfo, processing: ImageProcessing, maxPixelCount: Int, cpuSeconds: Int) {
        self.data = data
        self.info = info
        self.processing = processing
        self.maxPixelCount = maxPixelCount
        self.cpuSeconds = cpuSeconds
    }
}
