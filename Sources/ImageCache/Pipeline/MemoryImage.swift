import Foundation

/// What the memory and disk tiers hold for one key: the validated bytes, what they are, and the
/// HTTP response that came with them (nil for images that did not come over HTTP).
struct CachedImage: Sendable {
    var data: Data
    var info: ImageInfo
    var http: StoredResponse?

    /// Memory cost: decoded size (width × height × 4) when known, else the bytes.
    var cost: Int {
        let pixels = info.pixelWidth.multipliedReportingOverflow(by: info.pixelHeight)
        guard !pixels.overflow, pixels.partialValue > 0 else { return data.count }
        let decoded = pixels.partialValue.multipliedReportingOverflow(by: 4)
        return decoded.overflow ? Int.max : decoded.partialValue
    }

    func response(_ source: ImageSource, evaluator: CachePolicyEvaluator? = nil, now: Date = Date()) -> ImageResponse {
        var head: HTTPResponseHead?
        if let http {
            // Served from a cache: Age must say how old it is (RFC 9111 §5.1).
            let headers = evaluator?.headersForServing(http, now: now) ?? http.headers
            head = HTTPResponseHead(status: http.status, headers: headers)
        }
        return ImageResponse(data: data, info: info, http: head, source: source)
    }
}
