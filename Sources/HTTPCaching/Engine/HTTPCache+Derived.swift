import CacheStorage
import Foundation

/// Bodies derived from stored responses (an image's thumbnail), kept on disk as entries of their
/// own that the store ties to the response they were made from: removing, evicting or replacing
/// that response removes them, in every process. One is served only while its response may be
/// reused for a plain request, by the same rule that judges the response itself.
extension HTTPCache {
    /// The storage key of the body named `name` derived from the response stored under `key`: a
    /// space cannot occur in a URL key, so a derived key never names a response.
    static func derivedKey(_ name: String, of key: String) -> String {
        key + " " + name
    }

    /// The body named `name` derived from the response a plain request of `key` reuses, when the
    /// disk holds one made from that response's current bytes and the response is fresh under
    /// `override`; nil otherwise (nothing is read from the source but its headers).
    ///
    /// Writes not committed yet count as committed: a derived body waiting for the disk, and the
    /// source's own waiting write (new bytes, or new headers after a validation), which then
    /// decides both what the derived body must have been made from and whether it is fresh.
    func derivedBody(_ name: String, of key: String, override: FreshnessOverride?) -> DerivedBody? {
        guard let disk else { return nil }
        let derivedKey = Self.derivedKey(name, of: key)
        let waitingSource = pendingWrites?.response(for: key)
        let found: FoundDerived?
        do {
            found =
                try waitingDerived(derivedKey, of: key, waitingSource: waitingSource, disk: disk)
                ?? committedDerived(derivedKey, of: key, waitingSource: waitingSource, disk: disk)
        } catch {
            storageFailureLog.record(error, operation: "read")
            return nil
        }
        guard let found, found.source.status == 200,
            let reuse = evaluator(override: override).plainReuse(of: found.source, summary: found.sourceFreshness),
            reuse.isFresh(at: configuration.clock())
        else { return nil }
        return DerivedBody(body: found.body, description: found.description, sourceResponse: found.source, reuse: reuse)
    }

    /// A derived body and the response it stands for, wherever each was found.
    private struct FoundDerived {
        let body: Data
        let description: BodyDescription
        let source: StoredResponse
        let sourceFreshness: StoredFreshness?
    }

    /// The derived body waiting for the disk under `derivedKey`, when made from the bytes the
    /// source holds (waiting or committed).
    private func waitingDerived(
        _ derivedKey: String, of key: String, waitingSource: StoredEntry?, disk: DiskTier
    ) throws -> FoundDerived? {
        guard let write = pendingWrites?.derived(for: derivedKey) else { return nil }
        if let waitingSource {
            guard waitingSource.body == write.sourceBody else { return nil }
            return FoundDerived(
                body: write.body, description: write.description, source: waitingSource.response,
                sourceFreshness: waitingSource.freshness)
        }
        guard let source = try disk.store.metadata(for: key),
            source.checksum == write.source.checksum,
            let (response, freshness) = source.attributes.responseHeaders.flatMap(StoredResponse.decodeAnnotated)
        else { return nil }
        return FoundDerived(body: write.body, description: write.description, source: response, sourceFreshness: freshness)
    }

    /// The derived body the store holds under `derivedKey`, made from its source's committed
    /// bytes, or from the source's waiting bytes when it has a write waiting.
    private func committedDerived(
        _ derivedKey: String, of key: String, waitingSource: StoredEntry?, disk: DiskTier
    ) throws -> FoundDerived? {
        guard let found = try disk.store.get(derivedKey, derivedFrom: key) else { return nil }
        let attributes = found.entry.metadata.attributes
        let description = BodyDescription(
            format: attributes.format, pixelWidth: attributes.pixelWidth, pixelHeight: attributes.pixelHeight,
            cost: attributes.cost)
        if let waitingSource {
            guard found.source.checksum == EntrySource(key: key, bytes: waitingSource.body).checksum else { return nil }
            return FoundDerived(
                body: found.entry.data, description: description, source: waitingSource.response,
                sourceFreshness: waitingSource.freshness)
        }
        guard let headers = found.source.attributes.responseHeaders,
            let (response, freshness) = StoredResponse.decodeAnnotated(headers)
        else { return nil }
        return FoundDerived(body: found.entry.data, description: description, source: response, sourceFreshness: freshness)
    }

    /// Keeps `body`, derived from `sourceBody` (the bytes of the response stored under `key`), on
    /// disk under `name`, behind the caller (``WriteBehindQueue``); readable at once through
    /// ``derivedBody(_:of:override:)``. Nothing without a disk tier; dropped, counted and logged
    /// when the writes waiting are at their limits. When it commits, a source that no longer holds
    /// `sourceBody` (replaced meanwhile, perhaps by another process) makes the store refuse it, and
    /// a disk that refuses it (full, read-only) is counted and logged as other writes.
    func storeDerived(
        _ body: Data, description: BodyDescription, contentType: String?, name: String, of key: String, sourceBody: Data
    ) {
        let write = WriteBehindQueue.DerivedWrite(
            body: body, description: description, contentType: contentType, sourceKey: key, sourceBody: sourceBody)
        pendingWrites?.enqueue(.derived(write), for: Self.derivedKey(name, of: key))
    }
}
