import Foundation

/// Requests with an ``ImageRequest/processing``: a persistent one's variant is read from disk when
/// it is stored there (see `ImagePipeline+DiskVariants.swift`); otherwise the bytes are loaded as
/// for any request (memory, disk or network, under the request's policy, joining a load of the
/// same bytes in flight), then
/// decoded once per processing on the decoding queue (never on Swift's cooperative pool), or
/// resampled from a decode of the same bytes kept in memory (see `ImagePipeline+DecodedBases.swift`),
/// and kept in the memory tier at the cost of their pixels.
extension ImagePipeline {
    /// A processed image from memory, else the coalesced load and decode.
    nonisolated(nonsending) func loadProcessed(
        _ request: ImageRequest, bytesKey: MemoryKey, progress: (@Sendable (Int, Int?) -> Void)?
    ) async throws(ImageLoadError) -> ImageResponse {
        guard let variantKey = configuration.variantKey(for: request, memoryKey: bytesKey) else {
            preconditionFailure("a processed request has a processing")
        }
        if let hit = memoryHit(for: request, cacheKey: variantKey) { return hit }
        return try await decodeBeyondMemory(request, bytesKey: bytesKey, variantKey: variantKey, progress: progress)
    }

    /// The load and decode, coalesced per (source, processing), off the caller's actor.
    @concurrent
    private func decodeBeyondMemory(
        _ request: ImageRequest, bytesKey: MemoryKey, variantKey: MemoryKey, progress: (@Sendable (Int, Int?) -> Void)?
    ) async throws(ImageLoadError) -> ImageResponse {
        let key = InFlightLoads.Key(
            cacheKey: bytesKey.string, policy: request.policy, headers: request.headers,
            networkAccess: request.networkAccess, processing: request.processing, processedFormat: request.processedFormat)
        do {
            return try await loads.run(key, priority: request.priority.taskPriority, progress: progress) { shared in
                try await self.decode(request, bytesKey: bytesKey, variantKey: variantKey, shared: shared)
            }
        } catch {
            throw ImageLoadError(error)
        }
    }

    /// Loads the bytes, decodes them as the request asks, and keeps the result where the policy
    /// keeps images: beside the bytes, valid exactly as long as they are (the same judgement).
    private func decode(
        _ request: ImageRequest, bytesKey: MemoryKey, variantKey: MemoryKey, shared: SharedLoad
    ) async throws -> ImageResponse {
        guard let processing = request.processing else { preconditionFailure("a processed request has a processing") }
        let onDisk = keepsVariantOnDisk(request)
        if onDisk, let stored = await variantFromDisk(request, bytesKey: bytesKey, variantKey: variantKey) {
            return stored
        }
        var response = try await image(for: request.forBytes, progress: shared.report)
        let decoded: DecodedImage
        do {
            decoded = try await processedImage(of: response, processing: processing, bytesKey: bytesKey)
        } catch {
            throw ImageLoadError.decodingFailed(error)
        }
        if onDisk { await keepVariantOnDisk(decoded, of: request, original: response.data) }
        if request.policy != .withViewCycle {
            // A stored variant stands on its own: its bytes and its original's stored freshness,
            // not the original's bytes in memory, which may be too large to keep or already gone.
            let bytes = memory.value(for: bytesKey)
            let image =
                (onDisk ? variantKeptOnDisk(request, decoded: decoded) : nil)
                ?? CachedImage(data: response.data, info: response.info, http: bytes?.http, reuse: bytes?.reuse, decoded: decoded)
            memoryTier.keepVariant(image, for: variantKey, of: bytesKey)
        }
        response.decoded = decoded
        return response
    }
}
