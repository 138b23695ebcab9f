import CacheStorage
import Foundation

/// The disk tier: cached images as ``PersistentStore`` entries.
///
/// The stored response (status, headers, request and response times, the request headers `Vary`
/// names) travels as the entry's opaque `responseHeaders`; the validators, expiry and image facts
/// are also written as attributes, so `cachectl` can show and filter them.
struct DiskTier: Sendable {
    let store: PersistentStore

    /// The image stored for `key`; nil when absent or not written by the pipeline.
    func read(_ key: String) throws -> CachedImage? {
        guard let entry = try store.get(key) else { return nil }
        let attributes = entry.metadata.attributes
        guard let format = attributes.format.flatMap(ImageFormat.init(rawValue:)),
            let width = attributes.pixelWidth, let height = attributes.pixelHeight
        else { return nil }
        let http = attributes.responseHeaders.flatMap(StoredResponse.init(encoded:))
        return CachedImage(data: entry.data, info: ImageInfo(format: format, pixelWidth: width, pixelHeight: height), http: http)
    }

    func write(_ image: CachedImage, for key: String, evaluator: CachePolicyEvaluator) async throws {
        try await store.put(NewEntry(key: key, data: image.data, attributes: Self.attributes(of: image, evaluator: evaluator)))
    }

    /// After a 304: new headers, same bytes.
    func update(_ image: CachedImage, for key: String, evaluator: CachePolicyEvaluator) async throws {
        let found = try await store.updateAttributes(for: key, to: Self.attributes(of: image, evaluator: evaluator))
        if !found { try await write(image, for: key, evaluator: evaluator) }
    }

    func remove(_ key: String) async throws {
        try await store.remove(key)
    }

    static func attributes(of image: CachedImage, evaluator: CachePolicyEvaluator) -> EntryAttributes {
        let headers = image.http?.headers
        return EntryAttributes(
            expiresAt: image.http.flatMap { evaluator.expirationDate(of: $0) },
            etag: headers?.firstValue(for: "ETag"),
            lastModified: headers?.firstValue(for: "Last-Modified"),
            responseDate: headers?.firstValue(for: "Date").flatMap { HTTPDate.parse($0) },
            responseHeaders: image.http?.encoded(),
            contentType: headers?.firstValue(for: "Content-Type"),
            format: image.info.format.rawValue,
            pixelWidth: image.info.pixelWidth,
            pixelHeight: image.info.pixelHeight,
            cost: image.cost)
    }
}
