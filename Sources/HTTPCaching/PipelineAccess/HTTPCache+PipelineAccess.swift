import Foundation

extension HTTPCache {
    /// Everything the image pipeline may ask of the HTTP cache it is built on: the pipeline holds
    /// one of these, never the cache itself, so this type is all it may ask.
    ///
    /// - Loads: a look-up of the tiers for a plain request, answering fresh, stale or absent with
    ///   what it found; the load that takes that look-up instead of reading again; and a fetch
    ///   below the cache, for the policies that keep no HTTP cache.
    /// - Bodies derived from stored responses (thumbnails): one read, one store.
    /// - The key a request's credentials partition its URL's key into, which the pipeline's memory
    ///   tier shares so that it is partitioned as the disk is.
    /// - The cache's counters, and waiting for its background work and its writes.
    ///
    /// What the cache decides (freshness, `Vary`, storability, a served response's `Age`) it decides
    /// itself: each answer here comes judged, so the pipeline restates no rule.
    package struct PipelineAccess: Sendable {
        /// The cache behind this access.
        let cache: HTTPCache

        /// A cache made with `configuration` whose memory tier is `memoryTier`: the pipeline's
        /// tier of validated images, read before the disk tier and kept in step by the cache.
        package init(configuration: Configuration, memoryTier: any HTTPMemoryTier) {
            cache = HTTPCache(configuration: configuration, memoryTier: memoryTier)
        }

        // MARK: Loads

        /// Reads the tiers for a `GET` without header fields of its own, stored under `key`, as a
        /// load of it would, without loading: the memory tier (unless `readingMemory` is false,
        /// for a caller that has just seen it hold nothing under `key`), then the disk tier, whose
        /// entry joins the memory tier. The answer is judged under `override` as of now.
        ///
        /// Such a request's storage key is its URL's key: only credentials partition it.
        package func lookUp(plainRequestFor key: String, override: FreshnessOverride, readingMemory: Bool) -> Lookup {
            cache.lookUp(plainRequestFor: key, override: override, readingMemory: readingMemory)
        }

        /// The response to `request`, from storage or the origin as RFC 9111 allows (revalidated
        /// with a 304 where it can be), bodies from the network vetted by `acceptor`. `lookup`, a
        /// look-up of the same key made ahead of the load, stands for reading the tiers, so that
        /// a load reads storage once and counts one hit or miss.
        /// - Throws: ``HTTPCacheError``; ``HTTPCacheError/refused(_:)`` carries what `acceptor` threw.
        package func response(
            for request: HTTPCacheRequest, accepting acceptor: any ResponseBodyAcceptor, progress: ProgressHandler?,
            after lookup: Lookup?
        ) async throws(HTTPCacheError) -> HTTPCacheResponse {
            try await cache.response(for: request, accepting: acceptor, progress: progress, lookup: lookup)
        }

        /// Fetches `request` below the cache, through its fetch slots and retries, reading the body
        /// through `acceptor`: nothing is looked up, stored or invalidated.
        /// - Throws: ``HTTPCacheError``, as ``response(for:accepting:progress:after:)`` does.
        package func fetchUncached(
            _ request: HTTPCacheRequest, accepting acceptor: any ResponseBodyAcceptor, progress: ProgressHandler?
        ) async throws(HTTPCacheError) -> UncachedResponse {
            let fetched = try await cache.origin.fetch(request, accepting: acceptor, progress: progress)
            return UncachedResponse(fetched, request: request.head, fingerprintKey: cache.fingerprintKey)
        }

        /// The key a request with `headers` is kept under, given `key` for its URL: `key` itself
        /// unless its credentials partition it (``Configuration/credentialedResponses``).
        package func storageKey(_ key: String, headers: HeaderFields) -> String {
            cache.storageKey(key, headers: headers)
        }

        // MARK: Derived bodies

        /// Whether the cache has a disk tier, where derived bodies are kept.
        package var hasDiskTier: Bool { cache.disk != nil }

        /// The body named `name` derived from the response a plain request of `key` reuses, when
        /// the disk holds one made from that response's current bytes and the response is fresh
        /// under `override` now; nil otherwise. Writes not committed yet count as committed.
        package func derivedBody(_ name: String, of key: String, override: FreshnessOverride) -> DerivedBody? {
            cache.derivedBody(name, of: key, override: override)
        }

        /// Keeps `body`, derived from `sourceBody` (the bytes of the response stored under `key`), on
        /// disk under `name`, behind the caller; readable at once through
        /// ``derivedBody(_:of:override:)``. Stored only while the source holds `sourceBody`, and
        /// removed with it; a write the disk or the queue refuses is counted and logged.
        package func storeDerived(
            _ body: Data, description: BodyDescription, contentType: String?, name: String, of key: String,
            sourceBody: Data
        ) {
            cache.storeDerived(
                body, description: description, contentType: contentType, name: name, of: key, sourceBody: sourceBody)
        }

        // MARK: Counters and waiting

        /// ``HTTPCache/storageFailures``.
        package var storageFailures: StorageFailureCounts { cache.storageFailures }

        /// ``HTTPCache/writeBehindStatistics``.
        package var writeBehindStatistics: WriteBehindStatistics { cache.writeBehindStatistics }

        /// ``HTTPCache/waitForBackgroundWork()``.
        package func waitForBackgroundWork() async {
            await cache.waitForBackgroundWork()
        }

        /// ``HTTPCache/waitForPendingWrites()``.
        package func waitForPendingWrites() async {
            await cache.waitForPendingWrites()
        }
    }
}
