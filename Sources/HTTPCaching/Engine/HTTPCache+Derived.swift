import CacheStorage
import Foundation

/// Bodies derived from stored responses (an image's thumbnail), kept on disk as entries of their
/// own that the store ties to the response they were made from: removing, evicting or replacing
/// that response removes them, in every process. One is served only while its response may be
/// reused for a plain request, by the same rule that judges the response itself.
extension HTTPCache {
    /// A derived body read from disk, with the judgement of the response it was derived from.
    package struct DerivedBody: Sendable {
        /// The derived bytes.
        package let body: Data
        /// What they are (format, pixel size), as stored with them.
        package let description: BodyDescription
        /// The source response (validators, `Date`, `Content-Type` of the original).
        package let sourceResponse: StoredResponse
        /// The rule book's judgement of the source response, for a plain request.
        package let reuse: PlainReuse
    }

    /// The storage key of the body named `name` derived from the response stored under `key`: a
    /// space cannot occur in a URL key, so a derived key never names a response.
    package static func derivedKey(_ name: String, of key: String) -> String {
        key + " " + name
    }

    /// The body named `name` derived from the response a plain request of `key` reuses, when the
    /// disk holds one made from that response's current bytes and the response is fresh under
    /// `override`; nil otherwise (nothing is read from the source but its headers).
    package func derivedBody(_ name: String, of key: String, override: FreshnessOverride?) -> DerivedBody? {
        guard let disk else { return nil }
        let found: (entry: CachedEntry, source: EntryMetadata)?
        do {
            found = try disk.store.get(Self.derivedKey(name, of: key), derivedFrom: key)
        } catch {
            storageFailureLog.record(error, operation: "read")
            return nil
        }
        guard let found, let headers = found.source.attributes.responseHeaders,
            let (response, freshness) = StoredResponse.decodeAnnotated(headers),
            response.status == 200,
            let reuse = evaluator(override: override).plainReuse(of: response, summary: freshness),
            reuse.isFresh(at: configuration.clock())
        else { return nil }
        let attributes = found.entry.metadata.attributes
        let description = BodyDescription(
            format: attributes.format, pixelWidth: attributes.pixelWidth, pixelHeight: attributes.pixelHeight,
            cost: attributes.cost)
        return DerivedBody(body: found.entry.data, description: description, sourceResponse: response, reuse: reuse)
    }

    /// Keeps `body`, derived from `sourceBody` (the bytes of the response stored under `key`), on
    /// disk under `name`. Returns false, without throwing, when there is no disk tier, when the
    /// stored response no longer holds `sourceBody` (replaced meanwhile, perhaps by another
    /// process), or when the disk refuses it (full, read-only: counted and logged as other writes).
    @discardableResult
    package func storeDerived(
        _ body: Data, description: BodyDescription, contentType: String?, name: String, of key: String, sourceBody: Data
    ) async -> Bool {
        guard let disk else { return false }
        // Expires with its source, so eviction takes expired derived entries first too.
        let expiresAt = (try? disk.store.metadata(for: key))?.attributes.expiresAt
        let entry = NewEntry(
            key: Self.derivedKey(name, of: key), data: body,
            attributes: EntryAttributes(
                expiresAt: expiresAt, contentType: contentType, format: description.format,
                pixelWidth: description.pixelWidth, pixelHeight: description.pixelHeight, cost: description.cost),
            source: EntrySource(key: key, bytes: sourceBody))
        do {
            try await disk.store.put(entry)
            return true
        } catch StorageError.sourceChanged {
            return false
        } catch {
            storageFailureLog.record(error, operation: "store")
            return false
        }
    }
}
