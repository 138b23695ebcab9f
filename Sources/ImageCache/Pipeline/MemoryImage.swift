import Foundation

/// What the memory tier holds for one key: the validated bytes, what they are, and the HTTP
/// response that came with them (nil for images that did not come over HTTP).
struct CachedImage: Sendable {
    var data: Data
    var info: ImageInfo
    var http: StoredResponse?
    /// Until when a plain request with this override may take the image from memory without
    /// asking the HTTP cache: set only when storing proved it fresh (see `markReusable`).
    var reusableUntil: Date?
    var reusableOverride: FreshnessOverride?

    /// Precomputes the memory fast path: fresh now under `override`, not varying, not `no-cache`,
    /// and stored for a request with no headers of its own (which could carry directives).
    mutating func markReusable(override: FreshnessOverride, requestHeaders: HeaderFields, now: Date) {
        guard let http, requestHeaders.isEmpty, !http.headers.contains("Vary"), http.cacheControl.noCache == nil
        else { return }
        let evaluator = CachePolicyEvaluator(override: override)
        guard evaluator.isFresh(http, now: now) else { return }
        reusableUntil = evaluator.expirationDate(of: http) ?? .distantFuture
        reusableOverride = override
    }

    /// Memory cost: decoded size (width × height × 4) when known, else the bytes.
    var cost: Int { Self.cost(of: info, byteCount: data.count) }

    static func cost(of info: ImageInfo, byteCount: Int) -> Int {
        let pixels = info.pixelWidth.multipliedReportingOverflow(by: info.pixelHeight)
        guard !pixels.overflow, pixels.partialValue > 0 else { return byteCount }
        let decoded = pixels.partialValue.multipliedReportingOverflow(by: 4)
        return decoded.overflow ? Int.max : decoded.partialValue
    }

    /// The image as the HTTP cache's entry, for it to decide about; nil without a response.
    var storedEntry: StoredEntry? {
        http.map { StoredEntry(response: $0, body: data, description: BodyDescription(info, byteCount: data.count)) }
    }

    /// The image an HTTP cache entry holds, when its description names format and size.
    init?(_ entry: StoredEntry) {
        guard let info = ImageInfo(entry.description) else { return nil }
        self.init(data: entry.body, info: info, http: entry.response)
    }

    init(data: Data, info: ImageInfo, http: StoredResponse?) {
        self.data = data
        self.info = info
        self.http = http
    }

    /// The image as a response from `source`, with its stored headers.
    func response(_ source: ImageSource) -> ImageResponse {
        ImageResponse(data: data, info: info, http: http.map { HTTPResponseHead(status: $0.status, headers: $0.headers) }, source: source)
    }
}

extension BodyDescription {
    /// An image's facts as the HTTP cache stores them beside its bytes.
    init(_ info: ImageInfo, byteCount: Int) {
        self.init(
            format: info.format.rawValue, pixelWidth: info.pixelWidth, pixelHeight: info.pixelHeight,
            cost: CachedImage.cost(of: info, byteCount: byteCount))
    }
}

extension ImageInfo {
    /// The facts a stored description names; nil when it names no known format or no size (an
    /// entry not written by the pipeline).
    init?(_ description: BodyDescription) {
        guard let format = description.format.flatMap(ImageFormat.init(rawValue:)),
            let width = description.pixelWidth, let height = description.pixelHeight
        else { return nil }
        self.init(format: format, pixelWidth: width, pixelHeight: height)
    }
}
