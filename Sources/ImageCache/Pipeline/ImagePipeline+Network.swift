import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One exchange with the origin, after retries: the response head and, unless it was a 304, the
/// validated image.
struct FetchResult: Sendable {
    var head: HTTPResponseHead
    var request: HTTPRequestHead
    var requestTime: Date
    var responseTime: Date
    var image: (data: Data, info: ImageInfo)?

    /// The fetched image with its response; a 304 nobody asked for is not an image.
    func image(or request: ImageRequest) throws -> CachedImage {
        guard let image else { throw ImageLoadError.httpStatus(head.status) }
        let stored = StoredResponse(response: head, request: self.request, requestTime: requestTime, responseTime: responseTime)
        return CachedImage(data: image.data, info: image.info, http: stored)
    }
}

extension ImagePipeline {
    /// Fetches `request` with `conditionalHeaders` added, retrying transient failures.
    func fetch(_ request: ImageRequest, conditionalHeaders: HeaderFields, shared: SharedLoad?) async throws -> FetchResult {
        var head = HTTPRequestHead(method: "GET", headers: request.headers)
        for field in conditionalHeaders {
            head.headers.removeAll(named: field.name)
            head.headers.append(field)
        }
        let retry = configuration.retry
        var attempt = 1
        while true {
            try Task.checkCancellation()
            do {
                let result = try await withFetchSlot(request.priority) {
                    try await self.exchange(request, head: head, shared: shared)
                }
                let status = result.head.status
                if RetryPolicy.transientStatuses.contains(status) {
                    guard attempt < retry.maxAttempts else { throw ImageLoadError.httpStatus(status) }
                    let retryAfter = RetryPolicy.retryAfter(result.head.headers.firstValue(for: "Retry-After"), now: Date())
                    try await Task.sleep(for: retry.delay(afterAttempt: attempt, retryAfter: retryAfter))
                    attempt += 1
                    continue
                }
                return result
            } catch let error as URLError where error.isTransient && attempt < retry.maxAttempts {
                try await Task.sleep(for: retry.delay(afterAttempt: attempt, retryAfter: nil))
                attempt += 1
            }
        }
    }

    /// One request and its body, holding a fetch slot throughout.
    private func exchange(_ request: ImageRequest, head: HTTPRequestHead, shared: SharedLoad?) async throws -> FetchResult {
        let requestTime = Date()
        let response = try await configuration.transport.send(
            TransportRequest(url: request.url, head: head, timeout: configuration.requestTimeout))
        let responseTime = Date()
        let status = response.head.status
        var result = FetchResult(head: response.head, request: head, requestTime: requestTime, responseTime: responseTime)
        // Only a success carries an image; anything else is answered by its status alone.
        guard (200..<300).contains(status) else { return result }
        let download = ImageDownload(validator: configuration.validator, maxBodyBytes: configuration.maxBodyBytes)
        result.image = try await download.read(response) { received, expected in
            shared?.report(receivedBytes: received, expectedBytes: expected)
        }
        return result
    }

    private func withFetchSlot<Result: Sendable>(
        _ priority: ImageRequest.Priority, _ body: () async throws -> Result
    ) async throws -> Result {
        try await slots.acquire(priority: priority)
        do {
            let result = try await body()
            await slots.release()
            return result
        } catch {
            await slots.release()
            throw error
        }
    }
}
