import Foundation

/// Hits answered on the caller's task, before any coalescing: going through the in-flight registry
/// and the HTTP cache costs a task and a thread hop, more than the hit itself. Each path answers only when the HTTP cache's rule book says a plain request may use the
/// stored response now (``CachePolicyEvaluator/plainReuse(of:summary:)``); anything else goes the
/// slow way, which then decides with the full rule.
extension ImagePipeline {
    /// A memory hit: `duringAppSession` images, and `persistent` ones the HTTP cache judged for a
    /// plain request under the same override, while they are fresh.
    ///
    /// The response's `Age` is computed when its `http` is read, not here.
    func memoryHit(for request: ImageRequest, cacheKey: MemoryKey) -> ImageResponse? {
        switch request.policy {
        case .withViewCycle:
            return nil
        case .duringAppSession:
            return memory.value(for: cacheKey)?.memoryResponse
        case let .persistent(override):
            guard !request.hasOwnHeaders, let image = memory.value(for: cacheKey), let reuse = image.reuse,
                reuse.override == override, reuse.isFresh(at: Date())
            else { return nil }
            return image.memoryResponse
        }
    }

    /// The HTTP cache's look-up for a persistent request without headers of its own: the one read
    /// of storage its load makes. The load is handed what it found rather than reading again, so a
    /// load counts one hit or miss in the store's statistics.
    ///
    /// The memory tier is read again only when it holds an image under the key (one the memory fast
    /// path declined): asking it with the key's precomputed hash costs less than the HTTP cache's
    /// read of it by string.
    func lookUp(_ request: ImageRequest, cacheKey: MemoryKey) -> HTTPCache.Lookup? {
        guard case let .persistent(override) = request.policy, !request.hasOwnHeaders else { return nil }
        return httpCache.lookUp(
            plainRequestFor: configuration.key(for: request), override: override,
            readingMemory: memory.contains(cacheKey))
    }

    /// A stored hit: the look-up found a fresh 200 describing a validated image.
    func storedHit(_ lookup: HTTPCache.Lookup) -> ImageResponse? {
        guard case let .fresh(stored) = lookup.answer, stored.head.status == 200,
            let info = ImageInfo(stored.description)
        else { return nil }
        return ImageResponse(data: stored.body, info: info, http: stored.head, source: ImageSource(.cache(stored.tier)))
    }
}
