import Foundation

/// Where decodes and encodes run: a few threads of their own, never Swift's cooperative pool.
///
/// A decode is seconds of CPU for a large photo and cannot yield. Run on the cooperative pool (as
/// wide as the machine), a feed's decodes held every thread of it, and whatever
/// else the app had in flight (network reads, a loopback origin's replies, a storage worker's
/// readiness) waited behind them until requests timed out. Here they queue on an `OperationQueue`
/// as wide as the machine, whose threads the operating system shares fairly with the pool's.
package final class DecodingQueue: Sendable {
    /// The process's queue, shared by every pipeline (decoding width is a property of the machine,
    /// not of one pipeline).
    package static let shared = DecodingQueue(width: ProcessInfo.processInfo.activeProcessorCount)

    private let queue: OperationQueue

    /// A queue running at most `width` jobs at once.
    package init(width: Int) {
        queue = OperationQueue()
        queue.name = "ImageDecoding.DecodingQueue"
        queue.maxConcurrentOperationCount = max(1, width)
        queue.qualityOfService = .userInitiated
    }

    /// `work`'s result, computed on one of the queue's threads while the caller's task is suspended.
    package func run<Value: Sendable>(
        _ work: @escaping @Sendable () throws(ImageDecodingError) -> Value
    ) async throws(ImageDecodingError) -> Value {
        let result: Result<Value, ImageDecodingError> = await withCheckedContinuation { continuation in
            queue.addOperation {
                continuation.resume(returning: Result { () throws(ImageDecodingError) -> Value in try work() })
            }
        }
        return try result.get()
    }
}

extension ImageDecoder {
    /// ``decode(_:processing:maxPixelCount:)`` on the ``DecodingQueue``: what an `async` caller uses,
    /// so a long decode never holds a thread of Swift's cooperative pool. `trusted` bytes (ones this
    /// app encoded itself) go to ``decodeTrusted(_:processing:maxPixelCount:)``.
    package func decodeOffPool(
        _ data: Data, processing: ImageProcessing, maxPixelCount: Int, trusted: Bool = false, on queue: DecodingQueue = .shared
    ) async throws(ImageDecodingError) -> DecodedImage {
        try await queue.run { () throws(ImageDecodingError) -> DecodedImage in
            trusted
                ? try self.decodeTrusted(data, processing: processing, maxPixelCount: maxPixelCount)
                : try self.decode(data, processing: processing, maxPixelCount: maxPixelCount)
        }
    }
}
