import Foundation

/// Hits answered on the caller's task, before any coalescing: going through the in-flight registry
/// and the HTTP cache costs a task and a thread hop (tens of microseconds), more than the hit
/// itself. Each path answers only what it can prove the slow path would answer the same way;
/// anything else returns nil and goes the slow way.
extension ImagePipeline {
    /// A memory hit: `duringAppSession` images, and `persistent` ones that storing proved fresh
    /// (``CachedImage/init(data:info:http:judgedFor:requestHeaders:now:freshness:)``) while they still are.
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
                reuse.override == override, Date() < reuse.until
            else { return nil }
            return image.memoryResponse
        }
    }

    /// A disk hit: a `persistent` request without headers of its own, whose stored 200 response
    /// describes a validated image, does not vary, needs no validation and is fresh now under the
    /// request's override. One read of the store; the image then joins the memory tier.
    ///
    /// A storage error is not reported here: the slow path reads again and reports it.
    func diskHit(for request: ImageRequest, cacheKey: CacheKey) -> ImageResponse? {
        guard case let .persistent(override) = request.policy, !request.hasOwnHeaders,
            let disk = http.disk, let entry = try? disk.read(cacheKey.string), entry.response.status == 200,
            let info = ImageInfo(entry.description)
        else { return nil }
        let now = Date()
        let image = CachedImage(
            data: entry.body, info: info, http: entry.response, judgedFor: override, requestHeaders: request.headers,
            now: now, freshness: entry.freshness)
        guard let reuse = image.reuse else { return nil }
        memory.set(image, for: cacheKey, cost: image.cost)
        let headers = CachePolicyEvaluator.headers(of: entry.response, age: reuse.facts.age(at: now))
        return ImageResponse(
            data: image.data, info: info, http: HTTPResponseHead(status: 200, headers: headers), source: .disk)
    }
}
