import Foundation

/// Other sizes of an image from pixels already decoded: when the memory tier holds an image's
/// bytes, a processed request is resampled (``PixelResampler``) from the smaller decode kept
/// beside those bytes (``DecodedBase``), decoded first when none kept covers it. A thumbnail of a
/// new size is then a resample of far fewer pixels, not a decode of the original.
///
/// The base lives in the bytes' own entry, so it is charged to the memory tier, goes when the
/// bytes go or are replaced, and never meets bytes other than its own.
extension ImagePipeline {
    /// `response`'s image processed as `processing` asks, through a decoded base when the memory
    /// tier holds its bytes under `bytesKey`; otherwise decoded from the bytes.
    func processedImage(
        of response: ImageResponse, processing: ImageProcessing, bytesKey: MemoryKey
    ) async throws(ImageDecodingError) -> DecodedImage {
        let decoder = configuration.decoder
        let limit = configuration.validator.maxPixelCount
        guard let shrink = DecodedBase.shrink(for: response.info, processing: processing),
            let held = memoryTier.entry(holding: response.data, under: bytesKey)
        else {
            return try await decoder.decodeOffPool(response.data, processing: processing, maxPixelCount: limit)
        }
        let base: DecodedBase
        // A base at this shrink or a smaller one holds every pixel the target needs.
        if let kept = held.base, kept.shrink <= shrink {
            base = kept
        } else {
            let pixels = try await decoder.decodeOffPool(
                response.data, processing: DecodedBase.processing(for: response.info, shrink: shrink), maxPixelCount: limit)
            base = DecodedBase(shrink: shrink, image: pixels)
            memoryTier.keep(base, with: held, under: bytesKey)
        }
        return try await DecodingQueue.shared.run { () throws(ImageDecodingError) -> DecodedImage in
            try PixelResampler.resample(base, processing: processing)
        }
    }
}
