import Foundation

/// Processed images on disk: a thumbnail is stored, encoded compactly, as an entry derived from
/// its original's stored response, so the next launch shows it without reading the original's
/// bytes or the network. The store removes it with its original (removed, evicted, purged or
/// replaced by other bytes, in any process); it is served only while the original is fresh, by
/// the HTTP cache's one rule.
///
/// Only persistent requests without header fields of their own use it (their storage key is their
/// URL's), and only for a processing that changes the pixels: the original decoded is what the
/// stored bytes already are.
extension ImagePipeline {
    /// Whether `request`'s processed image is kept on disk.
    func keepsVariantOnDisk(_ request: ImageRequest) -> Bool {
        guard case .persistent = request.policy, !request.hasOwnHeaders, let processing = request.processing else {
            return false
        }
        return processing != .original && httpCache.hasDiskTier
    }

    /// The processed image from its disk variant, decoded (its bytes alone when the pipeline
    /// keeps no processed pixels), when one is stored from the original's current bytes and the
    /// original is fresh; kept in the memory tier as a decode would be.
    func variantFromDisk(_ request: ImageRequest, bytesKey: MemoryKey, variantKey: MemoryKey) async -> ImageResponse? {
        guard let (stored, info) = storedVariant(request) else { return nil }
        // Stored at its processed size by this pipeline's own encoder: decoded as it is, in this
        // process. A variant that no longer decodes (damage its checksum could not see) is a miss:
        // the original is decoded again and replaces it.
        var decoded: DecodedImage?
        if configuration.keepsProcessedPixels {
            guard
                let pixels = try? await configuration.decoder.decodeOffPool(
                    stored.body, processing: .original, maxPixelCount: configuration.validator.maxPixelCount, trusted: true)
            else { return nil }
            decoded = pixels
        }
        memoryTier.keepVariant(
            CachedImage(data: stored.body, info: info, http: stored.sourceResponse, reuse: stored.reuse, decoded: decoded),
            for: variantKey, of: bytesKey)
        return ImageResponse(data: stored.body, info: info, http: stored.servedHead(at: Date()), source: .disk, decoded: decoded)
    }

    /// `decoded`, just stored as `request`'s disk variant, as the memory tier keeps it: with the
    /// variant's own bytes and the stored original's freshness, so that it is a memory hit while
    /// the original is fresh whether or not the original's bytes are in memory. Nil when the
    /// variant is not stored (the disk refused it) or its original is no longer fresh.
    func variantKeptOnDisk(_ request: ImageRequest, decoded: DecodedImage) -> CachedImage? {
        guard let (stored, info) = storedVariant(request) else { return nil }
        return CachedImage(
            data: stored.body, info: info, http: stored.sourceResponse, reuse: stored.reuse,
            decoded: configuration.keepsProcessedPixels ? decoded : nil)
    }

    /// The disk variant of `request`, when stored from the original's current
    /// bytes and the original is fresh (the HTTP cache's judgement), with what it is.
    private func storedVariant(_ request: ImageRequest) -> (HTTPCache.DerivedBody, ImageInfo)? {
        guard case let .persistent(override) = request.policy,
            let name = request.variantName,
            let stored = httpCache.derivedBody(name, of: configuration.key(for: request), override: override),
            let info = ImageInfo(stored.description)
        else { return nil }
        return (stored, info)
    }

    /// Encodes `decoded` in the request's ``ImageRequest/processedFormat`` (by default
    /// `EncodedFormat.choice(for:)`: JPEG, PNG where there is alpha) and puts it in line for the
    /// disk as a variant of `original`'s bytes (committed behind the load, read
    /// meanwhile from the line). A failure loses only the variant: the next launch decodes the
    /// original again.
    func keepVariantOnDisk(_ decoded: DecodedImage, of request: ImageRequest, original: Data) async {
        guard let name = request.variantName else { return }
        let format = request.processedFormat ?? EncodedFormat.choice(for: decoded)
        let encoder = configuration.encoder
        guard
            let body = try? await DecodingQueue.shared.run({ () throws(ImageDecodingError) -> Data in
                try encoder.encode(decoded, as: format, quality: ImagePipeline.variantQuality)
            })
        else { return }
        let description = BodyDescription(
            format: format.rawValue, pixelWidth: decoded.pixelWidth, pixelHeight: decoded.pixelHeight, cost: decoded.cost)
        httpCache.storeDerived(
            body, description: description, contentType: "image/\(format.rawValue)", name: name,
            of: configuration.key(for: request), sourceBody: original)
    }

    /// The quality disk variants are encoded at: thumbnails seen at their pixel size, where 85
    /// shows no artefacts and halves the bytes of 95.
    static let variantQuality = 85
}
