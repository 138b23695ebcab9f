import Foundation

/// Hits answered on the caller's task, before any coalescing: going through the in-flight registry
/// and the HTTP cache costs a task and a thread hop (tens of microseconds), more than the hit
/// itself. Each path answers only when the HTTP cache's rule book says a plain request may use the
/// stored response now (``CachePolicyEvaluator/plainReuse(of:summary:)``); anything else goes the
/// slow way, which then decides with the full rule.
extension ImagePipeline {
    /// A memory hit: `duringAppSession` images, and `persistent` ones the HTTP cache judged for a
    /// plain request under the same override, while they are fresh.
    ///
    /// The response's `Age` is computed when its `http` is read, not here.
    func memoryHit(for request: ImageRequest, cacheKey: CacheKey) -> ImageResponse? {
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
    func lookUp(_ request: ImageRequest, cacheKey: CacheKey) -> HTTPCache.Lookup? {
        guard case let .persistent(override) = request.policy, !request.hasOwnHeaders else { return nil }
        return http.lookUp(
            plainRequestFor: configuration.key(for: request), override: override,
            readingMemory: memory.contains(cacheKey))
    }

    /// A stored hit: what the look-up found is a 200 describing a validated image, and the rule
    /// book's judgement for a plain request says it is fresh now.
    func storedHit(_ lookup: HTTPCache.Lookup) -> ImageResponse? {
        // Read through `lookup` rather than bound to a local: binding the entry would copy it.
        guard let reuse = lookup.plainReuse, lookup.found?.entry.response.status == 200,
            let description = lookup.found?.entry.description, let info = ImageInfo(description)
        else { return nil }
        let now = Date()
        guard reuse.isFresh(at: now) else { return nil }
        return lookup.found?.imageResponse(info: info, age: reuse.facts.age(at: now))
    }
}

extension HTTPCache.Found {
    /// The found 200 as the caller's image response, with `Age: age`.
    fileprivate func imageResponse(info: ImageInfo, age: Double) -> ImageResponse {
        ImageResponse(
            data: entry.body, info: info, http: CachePolicyEvaluator.servedHead(entry.response, age: age),
            source: ImageSource(.cache(tier)))
    }
}
