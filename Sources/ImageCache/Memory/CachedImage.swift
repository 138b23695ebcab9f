import Foundation

/// What the memory tier holds for one key: the validated bytes, what they are, and the HTTP
/// response that came with them (nil for images that did not come over HTTP); under a processed
/// image's key (``MemoryKey/variant(_:)``), also the decoded image.
///
/// A class, immutable, with the memory-hit response built once: a hit then copies out one
/// reference instead of every field (each a retain and a release), which is most of its cost.
final class CachedImage: Sendable {
    let data: Data
    let info: ImageInfo
    let http: StoredResponse?
    /// The HTTP cache's judgement of the image for a request without header fields of its own
    /// (``CachePolicyEvaluator/plainReuse(of:summary:)``): a plain persistent request under the same
    /// override takes it from memory while it is fresh. Nil when only the HTTP cache may judge it.
    let reuse: PlainReuse?
    /// The pixels, for a processed image.
    let decoded: DecodedImage?
    /// A smaller decode of the bytes, which other sizes of the image are resampled from: it lives
    /// and goes with the bytes it was decoded from.
    let base: DecodedBase?
    /// The image as a memory hit answers it: the stored headers, with an `Age` computed when read.
    let memoryResponse: ImageResponse

    init(
        data: Data, info: ImageInfo, http: StoredResponse?, reuse: PlainReuse? = nil, decoded: DecodedImage? = nil,
        base: DecodedBase? = nil
    ) {
        self.data = data
        self.info = info
        self.http = http
        self.reuse = reuse
        self.decoded = decoded
        self.base = base
        memoryResponse =
            http.map { ImageResponse(data: data, info: info, agingFrom: $0, source: .memory, decoded: decoded) }
            ?? ImageResponse(data: data, info: info, http: nil, source: .memory, decoded: decoded)
    }

    /// What keeping it costs, in bytes held: the encoded bytes, plus the pixels of a decoded image
    /// and of a base.
    var cost: Int { data.count + (decoded?.cost ?? 0) + (base?.cost ?? 0) }

    /// The same image, with `base` kept beside its bytes.
    func keeping(_ base: DecodedBase) -> CachedImage {
        CachedImage(data: data, info: info, http: http, reuse: reuse, decoded: decoded, base: base)
    }

    /// The image as the HTTP cache's entry, for it to decide about; nil without a response.
    var storedEntry: StoredEntry? {
        http.map { StoredEntry(response: $0, body: data, description: BodyDescription(info, byteCount: data.count)) }
    }

    /// The image an HTTP cache entry holds, when its description names format and size, with the
    /// `base` decoded from the same bytes.
    convenience init?(_ entry: StoredEntry, reuse: PlainReuse?, base: DecodedBase?) {
        guard let info = ImageInfo(entry.description) else { return nil }
        self.init(data: entry.body, info: info, http: entry.response, reuse: reuse, base: base)
    }
}

extension BodyDescription {
    /// An image's facts as the HTTP cache stores them beside its bytes.
    init(_ info: ImageInfo, byteCount: Int) {
        self.init(
            format: info.format.rawValue, pixelWidth: info.pixelWidth, pixelHeight: info.pixelHeight,
            cost: byteCount)
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
