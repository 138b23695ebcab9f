import Foundation

extension ImageEncoder {
    /// ``encode(_:as:quality:)`` on the decoding queue, never on Swift's cooperative pool: what an
    /// `async` caller outside the pipeline uses (a server encoding a thumbnail for one answer).
    public func encodeOffPool(
        _ image: DecodedImage, as format: EncodedFormat, quality: Int
    ) async throws(ImageDecodingError) -> Data {
        try await DecodingQueue.shared.run { () throws(ImageDecodingError) -> Data in
            try self.encode(image, as: format, quality: quality)
        }
    }
}
