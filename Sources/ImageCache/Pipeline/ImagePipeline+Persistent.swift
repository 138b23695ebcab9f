import Foundation

/// The persistent policy: the memory tier of decoded images in front of the HTTP cache, which
/// answers from disk or the origin as RFC 9111 allows.
extension ImagePipeline {
    func loadPersistent(
        _ request: ImageRequest, cacheKey: CacheKey, override: FreshnessOverride, shared: SharedLoad
    ) async throws -> ImageResponse {
        // An image remembered without its response cannot be judged; the HTTP cache then looks on disk.
        let remembered = memory.value(for: cacheKey).flatMap { $0.http == nil ? nil : $0 }
        var httpRequest = HTTPCacheRequest(
            url: request.url, headers: request.headers,
            mode: request.networkAccess == .cacheOnly ? .onlyIfCached : .default)
        // The URL's key: the HTTP cache partitions it by credentials itself, as `cacheKey` already is.
        httpRequest.cacheKey = configuration.key(for: request)
        httpRequest.freshnessOverride = override
        let acceptor = ImageBodyAcceptor(validator: configuration.validator)
        let memory = memory
        let front = FrontTier(entry: remembered?.storedEntry) { refreshed in
            // A background refresh replaced the entry: keep the new one, or let the next load read it.
            if let image = CachedImage(refreshed) {
                memory.set(image, for: cacheKey, cost: image.cost)
            } else {
                memory.removeValue(for: cacheKey)
            }
        }
        let response = try await http.response(
            for: httpRequest, accepting: acceptor, progress: shared.report, front: front)
        let info = try imageInfo(of: response, remembered: remembered, acceptor: acceptor)
        if let stored = response.storedResponse {
            let image = CachedImage(
                data: response.body, info: info, http: stored, judgedFor: override, requestHeaders: request.headers,
                now: Date())
            memory.set(image, for: cacheKey, cost: image.cost)
        }
        return ImageResponse(data: response.body, info: info, http: response.head, source: ImageSource(response.source))
    }

    /// What the served bytes are: validated now (from the network), remembered (the memory tier's
    /// entry answered, possibly after a 304), or described on disk (validated again if not).
    private func imageInfo(
        of response: HTTPCacheResponse, remembered: CachedImage?, acceptor: ImageBodyAcceptor
    ) throws -> ImageInfo {
        if response.source == .network, let info = acceptor.validatedInfo { return info }
        if response.source != .network, let remembered { return remembered.info }
        if let info = ImageInfo(response.bodyDescription) { return info }
        do {
            return try configuration.validator.validate(response.body)
        } catch {
            throw ImageLoadError.invalidImage(error)
        }
    }
}

extension ImageSource {
    /// Where the HTTP cache's response came from, in the pipeline's terms.
    init(_ source: HTTPCacheResponse.Source) {
        switch source {
        case .cache(.memory): self = .memory
        case .cache(.disk): self = .disk
        case .network: self = .network
        case .revalidated: self = .revalidated
        case .stale: self = .stale
        // Never seen: the pipeline leaves generatesGatewayTimeout off, so such failures are errors.
        case .generated: self = .network
        }
    }
}
