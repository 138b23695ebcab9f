import Foundation

/// The persistent policy: memory, then disk, then the origin, as HTTP caching (RFC 9111) allows.
extension ImagePipeline {
    func loadPersistent(
        _ request: ImageRequest, cacheKey: String, evaluator: CachePolicyEvaluator, shared: SharedLoad
    ) async throws -> ImageResponse {
        let requestHead = HTTPRequestHead(method: "GET", headers: request.headers)
        let now = Date()
        var cached = memory.value(for: cacheKey)
        var source = ImageSource.memory
        if cached == nil, let disk, let fromDisk = try disk.read(cacheKey) {
            cached = fromDisk
            source = .disk
        }
        if request.networkAccess == .cacheOnly {
            // Offline: whatever is cached, marked stale when it is.
            guard let cached else { throw ImageLoadError.notCached(request.url) }
            remember(cached, for: cacheKey, from: source)
            let fresh = cached.http.map { evaluator.isFresh($0, now: now) } ?? true
            return cached.response(fresh ? source : .stale, evaluator: evaluator, now: now)
        }
        guard let cached, let stored = cached.http else {
            return try await fetchAndStore(request, cacheKey: cacheKey, cached: nil, conditionalHeaders: [:], evaluator: evaluator, shared: shared)
        }
        switch evaluator.decision(for: requestHead, stored: stored, now: now) {
        case .useStored:
            remember(cached, for: cacheKey, from: source)
            return cached.response(source, evaluator: evaluator, now: now)
        case let .useStoredAndRevalidateInBackground(conditionalHeaders):
            remember(cached, for: cacheKey, from: source)
            runInBackground {
                _ = try? await self.fetchAndStore(
                    request, cacheKey: cacheKey, cached: cached, conditionalHeaders: conditionalHeaders,
                    evaluator: evaluator, shared: nil)
            }
            return cached.response(.stale, evaluator: evaluator, now: now)
        case let .revalidate(conditionalHeaders):
            return try await fetchAndStore(
                request, cacheKey: cacheKey, cached: cached, conditionalHeaders: conditionalHeaders, evaluator: evaluator,
                shared: shared)
        case .fetch:
            return try await fetchAndStore(request, cacheKey: cacheKey, cached: cached, conditionalHeaders: [:], evaluator: evaluator, shared: shared)
        case .unavailable:
            throw ImageLoadError.notCached(request.url)
        }
    }

    /// Asks the origin; stores what may be stored; falls back to the stale copy when the origin
    /// fails and the headers allow it (`stale-if-error`, or unreachable without a limit).
    func fetchAndStore(
        _ request: ImageRequest, cacheKey: String, cached: CachedImage?, conditionalHeaders: HeaderFields,
        evaluator: CachePolicyEvaluator, shared: SharedLoad?
    ) async throws -> ImageResponse {
        let result: FetchResult
        do {
            result = try await fetch(request, conditionalHeaders: conditionalHeaders, shared: shared)
            if (500..<600).contains(result.head.status) { throw ImageLoadError.httpStatus(result.head.status) }
        } catch {
            let failure = ImageLoadError(error)
            if let cached, let stored = cached.http, let context = failure.staleContext,
                evaluator.canServeStale(stored, now: Date(), request: HTTPRequestHead(method: "GET", headers: request.headers), context: context)
            {
                return cached.response(.stale, evaluator: evaluator)
            }
            throw failure
        }
        if result.head.status == 304, let cached, let stored = cached.http {
            guard let updated = stored.updating(with: result.head, requestTime: result.requestTime, responseTime: result.responseTime)
            else {
                // A 304 for a validator we did not send: the stored copy is not confirmed; fetch afresh.
                return try await fetchAndStore(
                    request, cacheKey: cacheKey, cached: nil, conditionalHeaders: [:], evaluator: evaluator, shared: shared)
            }
            let refreshed = CachedImage(data: cached.data, info: cached.info, http: updated)
            memory.set(refreshed, for: cacheKey, cost: refreshed.cost)
            try await disk?.update(refreshed, for: cacheKey, evaluator: evaluator)
            return refreshed.response(.revalidated, evaluator: evaluator)
        }
        let image = try result.image(or: request)
        if evaluator.isStorable(result.head, for: result.request) {
            memory.set(image, for: cacheKey, cost: image.cost)
            try await disk?.write(image, for: cacheKey, evaluator: evaluator)
        }
        return image.response(.network)
    }

    private func remember(_ image: CachedImage, for key: String, from source: ImageSource) {
        if source == .disk { memory.set(image, for: key, cost: image.cost) }
    }
}

extension ImageLoadError {
    /// How the origin failed, for deciding whether a stale copy may stand in; nil when it did not.
    var staleContext: CachePolicyEvaluator.StaleContext? {
        switch self {
        case let .httpStatus(status) where (500..<600).contains(status): .originError(status: status)
        case let .network(_, transient) where transient: .originUnreachable
        default: nil
        }
    }
}
