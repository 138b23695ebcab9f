import Foundation

/// The persistent policy: the HTTP cache answers from its tiers (the pipeline's memory tier, then
/// disk) or the origin as RFC 9111 allows, and keeps the memory tier in step.
extension ImagePipeline {
    func loadPersistent(
        _ request: ImageRequest, override: FreshnessOverride, lookup: HTTPCache.Lookup?, shared: SharedLoad
    ) async throws -> ImageResponse {
        let acceptor = ImageBodyAcceptor(validator: configuration.validator)
        let response = try await httpCache.response(
            for: httpRequest(for: request, override: override), accepting: acceptor, progress: shared.report,
            after: lookup)
        let info = try imageInfo(of: response, acceptor: acceptor)
        return ImageResponse(data: response.body, info: info, http: response.head, source: ImageSource(response.source))
    }

    /// `request` as the HTTP cache takes it.
    func httpRequest(for request: ImageRequest, override: FreshnessOverride) -> HTTPCacheRequest {
        var httpRequest = HTTPCacheRequest(
            url: request.url, headers: request.headers,
            mode: request.networkAccess == .cacheOnly ? .onlyIfCached : .default)
        // The URL's key: the HTTP cache partitions it by credentials itself.
        httpRequest.cacheKey = configuration.key(for: request)
        httpRequest.freshnessOverride = override
        return httpRequest
    }

    /// What the served bytes are: validated now (from the network), or described where they were
    /// kept (validated again if not: an entry stored by something other than a pipeline).
    private func imageInfo(of response: HTTPCacheResponse, acceptor: ImageBodyAcceptor) throws -> ImageInfo {
        if response.source == .network, let info = acceptor.validatedInfo { return info }
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
