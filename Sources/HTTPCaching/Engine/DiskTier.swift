import CacheStorage
import Foundation

/// The disk tier: stored responses as ``PersistentStore`` entries, one per key.
///
/// The whole ``StoredResponse`` (status, headers, request and response times, the request fields
/// `Vary` names) travels as the entry's opaque `responseHeaders`, with a ``StoredFreshness`` summary
/// so that a fresh hit is judged without parsing headers; its validators, expiry, `Date` and
/// `Content-Type` and the body's ``BodyDescription`` are also written as attributes, so `cachectl`
/// can show and filter them and eviction removes expired entries first.
struct DiskTier: Sendable {
    let store: PersistentStore

    /// The entry stored for `key`; nil when absent or not written by an HTTP cache.
    func read(_ key: String) throws -> StoredEntry? {
        guard let entry = try store.get(key) else { return nil }
        let attributes = entry.metadata.attributes
        guard let (response, freshness) = attributes.responseHeaders.flatMap(StoredResponse.decodeAnnotated) else {
            return nil
        }
        let description = BodyDescription(
            format: attributes.format, pixelWidth: attributes.pixelWidth, pixelHeight: attributes.pixelHeight,
            cost: attributes.cost)
        return StoredEntry(response: response, body: entry.data, description: description, freshness: freshness)
    }

    func write(_ entry: StoredEntry, for key: String, evaluator: CachePolicyEvaluator) async throws {
        try await store.put(NewEntry(key: key, data: entry.body, attributes: Self.attributes(of: entry, evaluator: evaluator)))
    }

    /// After a validation: new headers, same bytes (written in full if the entry has gone
    /// meanwhile; left alone if it holds newer bytes another writer stored meanwhile).
    func update(_ entry: StoredEntry, for key: String, evaluator: CachePolicyEvaluator) async throws {
        let outcome = try await store.updateAttributes(
            for: key, to: Self.attributes(of: entry, evaluator: evaluator), ifBytesAre: entry.body)
        if outcome == .missing { try await write(entry, for: key, evaluator: evaluator) }
    }

    /// Stores a derived body under `key`, tied to its source's bytes; it expires with its source,
    /// so eviction takes expired derived entries first too.
    /// - Throws: `StorageError.sourceChanged` when the source no longer holds the bytes it was made from.
    func writeDerived(_ derived: WriteBehindQueue.DerivedWrite, for key: String) async throws {
        let expiresAt = try store.metadata(for: derived.sourceKey)?.attributes.expiresAt
        let description = derived.description
        try await store.put(
            NewEntry(
                key: key, data: derived.body,
                attributes: EntryAttributes(
                    expiresAt: expiresAt, contentType: derived.contentType, format: description.format,
                    pixelWidth: description.pixelWidth, pixelHeight: description.pixelHeight, cost: description.cost),
                source: derived.source))
    }

    func remove(_ keys: [String]) async throws {
        try await store.remove(keys)
    }

    /// The entry's attributes; its freshness summary (made once when it was stored) gives both the
    /// expiry and the summary written beside the response, without parsing the headers again.
    static func attributes(of entry: StoredEntry, evaluator: CachePolicyEvaluator) -> EntryAttributes {
        let headers = entry.response.headers
        let freshness = entry.freshness ?? StoredFreshness(entry.response, evaluator: evaluator)
        let facts = freshness.facts(under: evaluator, status: entry.response.status, responseTime: entry.response.responseTime)
        return EntryAttributes(
            expiresAt: facts.map(\.expirationDate) ?? evaluator.expirationDate(of: entry.response),
            etag: headers.firstValue(for: "ETag"),
            lastModified: headers.firstValue(for: "Last-Modified"),
            responseDate: headers.firstValue(for: "Date").flatMap { HTTPDate.parse($0) },
            responseHeaders: entry.response.encoded(freshness: freshness),
            contentType: headers.firstValue(for: "Content-Type"),
            format: entry.description.format,
            pixelWidth: entry.description.pixelWidth,
            pixelHeight: entry.description.pixelHeight,
            cost: entry.description.cost)
    }
}
