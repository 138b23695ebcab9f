import CacheStorage
import Foundation

/// A private HTTP cache (RFC 9111) for any request: a memory tier, a `PersistentStore`, and an
/// ``HTTPTransport`` to the origin.
///
/// `GET` responses with any status the rules allow are stored and reused while fresh; stale ones
/// are revalidated with their validators (`If-None-Match`, `If-Modified-Since`) and served again on
/// a 304; `stale-while-revalidate` and `stale-if-error` are honoured. `HEAD` is answered from a stored
/// `GET` response (and a 200 to `HEAD` freshens it), and a single `Range` from a stored 200 (a 206).
/// Other methods pass through, and a successful unsafe one (`POST`, `PUT`, `DELETE`, unknown
/// methods) invalidates what is stored for its URL and for same-origin `Location` and
/// `Content-Location` URLs (§4.4).
///
/// One response is kept per URL (per ``HTTPCacheRequest/cacheKey``): a response that `Vary`s
/// replaces the variant stored before it. Served responses carry `Age`; fresh ones from the network
/// arrive exactly as sent, header order and repeated lines included.
///
/// ```swift
/// let cache = HTTPCache(configuration: .init(store: try PersistentStore(directory: folder)))
/// let response = try await cache.response(for: HTTPCacheRequest(url: url))
/// print(response.head.status, response.source)   // 200 network, then 200 cache(disk) while fresh
/// ```
///
/// The rules themselves are ``CachePolicyEvaluator``'s; this type performs what it decides.
public final class HTTPCache: Sendable {
    /// Hears about a body's bytes as they arrive: received so far, and the announced length if any.
    public typealias ProgressHandler = @Sendable (_ receivedBytes: Int, _ expectedBytes: Int?) -> Void

    /// The configuration the cache was made with.
    public let configuration: Configuration
    let memory: MemoryCache<String, StoredEntry>?
    package let disk: DiskTier?
    let background = BackgroundWork()
    /// Slots for exchanges with origins, when ``Configuration/maxConcurrentFetches`` sets a limit.
    let fetchSlots: FetchSlots?
    let storageFailureLog: StorageFailureLog
    /// The key of the `Vary` fingerprints this cache stores and matches: its store's, kept beside
    /// it (`FingerprintKeyFile`), so a later process matches them too; this process's without a store.
    package let fingerprintKey: FingerprintKey

    /// How often the disk tier failed to store, update or remove a response (a full disk, a
    /// read-only store, an entry over the store's limits). Such a failure never fails a request:
    /// the response is returned as it arrived, and each cause is logged once.
    public var storageFailures: StorageFailureCounts { storageFailureLog.counts }

    /// Creates a cache.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        fetchSlots = configuration.maxConcurrentFetches.map { FetchSlots(limit: $0) }
        memory =
            configuration.memoryCostLimit > 0
            ? MemoryCache(costLimit: configuration.memoryCostLimit, countLimit: configuration.memoryCountLimit) : nil
        disk = configuration.store.map { DiskTier(store: $0) }
        storageFailureLog = StorageFailureLog(logger: configuration.logger)
        fingerprintKey =
            configuration.store.map { FingerprintKeyFile.key(for: $0, logger: configuration.logger) } ?? .process
    }

    /// The response to `request`, from storage or the origin as RFC 9111 allows, with every body accepted.
    /// - Throws: ``HTTPCacheError``.
    public func response(for request: HTTPCacheRequest) async throws(HTTPCacheError) -> HTTPCacheResponse {
        try await response(for: request, accepting: AcceptEveryBody())
    }

    /// The response to `request`, with bodies from the network vetted by `acceptor` as they arrive
    /// and `progress` told about them.
    /// - Throws: ``HTTPCacheError``; ``HTTPCacheError/refused(_:)`` carries what `acceptor` threw.
    public func response(
        for request: HTTPCacheRequest, accepting acceptor: some ResponseBodyAcceptor, progress: ProgressHandler? = nil
    ) async throws(HTTPCacheError) -> HTTPCacheResponse {
        try await response(for: request, accepting: acceptor, progress: progress, front: nil)
    }

    /// ``response(for:accepting:progress:)`` with a caller's memory tier in front of the cache's own.
    package func response(
        for request: HTTPCacheRequest, accepting acceptor: any ResponseBodyAcceptor, progress: ProgressHandler?,
        front: FrontTier?
    ) async throws(HTTPCacheError) -> HTTPCacheResponse {
        var evaluator = configuration.evaluator
        if let override = request.freshnessOverride { evaluator.override = override }
        evaluator.fingerprintKey = fingerprintKey
        var request = request
        if configuration.credentialedResponses == .notStored, request.mode == .default,
            CredentialFields.present(in: request.headers)
        {
            request.mode = .noStore
        }
        let urlKey = request.cacheKey ?? configuration.cacheKey(request.url)
        let transaction = Transaction(
            request: request, key: storageKey(urlKey, headers: request.headers), urlKey: urlKey, evaluator: evaluator,
            acceptor: acceptor, progress: progress, front: front)
        do {
            return try await respond(to: transaction)
        } catch {
            throw HTTPCacheError(error, transport: configuration.transport)
        }
    }

    /// Waits for background work (`stale-while-revalidate` refreshes) to finish.
    public func waitForBackgroundWork() async {
        await background.waitUntilIdle()
    }
}

extension HTTPCache {
    /// One request's passage through the cache: what it asks, under which key and rules.
    struct Transaction: Sendable {
        let request: HTTPCacheRequest
        /// Where the response is kept: ``urlKey``, partitioned by credentials (``HTTPCache/storageKey(_:headers:)``).
        let key: String
        /// The key for the request's URL alone, shared by every partition.
        let urlKey: String
        let evaluator: CachePolicyEvaluator
        let acceptor: any ResponseBodyAcceptor
        var progress: ProgressHandler?
        let front: FrontTier?

        var head: HTTPRequestHead { request.head }
    }
}
