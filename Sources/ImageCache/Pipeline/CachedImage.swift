import Foundation

/// What the memory tier holds for one key: the validated bytes, what they are, and the HTTP
/// response that came with them (nil for images that did not come over HTTP).
///
/// A class, immutable, with the memory-hit response built once: a hit then copies out one
/// reference instead of every field (each a retain and a release), which is most of its cost.
final class CachedImage: Sendable {
    let data: Data
    let info: ImageInfo
    let http: StoredResponse?
    /// When a plain request may take the image from memory without asking the HTTP cache, and
    /// under which override; nil unless storing proved it fresh (see ``init(data:info:http:judgedFor:requestHeaders:now:freshness:)``).
    let reuse: Reuse?
    /// The image as a memory hit answers it: the stored headers, with an `Age` computed when read.
    let memoryResponse: ImageResponse

    /// Until when, and for which freshness override, the image is known fresh.
    struct Reuse: Sendable {
        let until: Date
        let override: FreshnessOverride
        /// Lifetime and age on arrival, for the `Age` of a response served from it.
        let facts: FreshnessFacts
    }

    init(data: Data, info: ImageInfo, http: StoredResponse?, reuse: Reuse? = nil) {
        self.data = data
        self.info = info
        self.http = http
        self.reuse = reuse
        memoryResponse =
            http.map { ImageResponse(data: data, info: info, agingFrom: $0, source: .memory) }
            ?? ImageResponse(data: data, info: info, http: nil, source: .memory)
    }

    /// The image with the memory fast path precomputed when it may be: fresh now under `override`,
    /// not varying, not `no-cache`, and stored for a request with no headers of its own (which could
    /// carry directives). Otherwise ``reuse`` is nil and only the HTTP cache may judge it.
    ///
    /// `freshness`, the disk tier's summary of `http`, saves parsing its headers.
    convenience init(
        data: Data, info: ImageInfo, http: StoredResponse, judgedFor override: FreshnessOverride,
        requestHeaders: HeaderFields, now: Date, freshness: StoredFreshness? = nil
    ) {
        let evaluator = CachePolicyEvaluator(override: override)
        let reuse =
            requestHeaders.isEmpty
            ? Self.reuse(of: http, evaluator, now, summary: freshness) : nil
        self.init(data: data, info: info, http: http, reuse: reuse)
    }

    private static func reuse(
        of http: StoredResponse, _ evaluator: CachePolicyEvaluator, _ now: Date, summary: StoredFreshness?
    ) -> Reuse? {
        // The disk tier's summary when it was made under these heuristic settings, else one made
        // from the headers now: one judgement either way.
        func judged(_ summary: StoredFreshness) -> FreshnessFacts? {
            summary.facts(under: evaluator, status: http.status, responseTime: http.responseTime)
        }
        let usable: StoredFreshness
        let facts: FreshnessFacts?
        if let summary, let summarised = judged(summary) {
            (usable, facts) = (summary, summarised)
        } else {
            usable = StoredFreshness(http, evaluator: evaluator)
            facts = judged(usable)
        }
        guard !usable.varies, !usable.noCache, let facts, facts.isFresh(at: now) else { return nil }
        return Reuse(until: facts.expirationDate ?? .distantFuture, override: evaluator.override, facts: facts)
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
    convenience init?(_ entry: StoredEntry) {
        guard let info = ImageInfo(entry.description) else { return nil }
        self.init(data: entry.body, info: info, http: entry.response)
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
