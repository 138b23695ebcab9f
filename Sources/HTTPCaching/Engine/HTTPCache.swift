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
    /// Read before the disk tier and kept in step with it: the cache's own, or its user's.
    let memory: (any HTTPMemoryTier)?
    let disk: DiskTier?
    /// The disk tier's writes, behind the responses; read before the disk tier. Nil without one.
    let pendingWrites: WriteBehindQueue?
    let background = BackgroundWork()
    /// Exchanges with origins: slots, retries, bodies read through an acceptor.
    let origin: OriginFetcher
    let storageFailureLog: StorageFailureLog
    /// The key of the `Vary` fingerprints this cache stores and matches: its store's, kept beside
    /// it (`FingerprintKeyFile`), so a later process matches them too; this process's without a store.
    let fingerprintKey: FingerprintKey

    /// How often the disk tier failed to store, update or remove a response (a full disk, a
    /// read-only store, an entry over the store's limits, a write dropped because too many
    /// waited). Such a failure never fails a request: the response is returned as it arrived,
    /// and each cause is logged once.
    public var storageFailures: StorageFailureCounts { storageFailureLog.counts }

    /// What the writes behind responses have done, and what waits now (empty without a store).
    public var writeBehindStatistics: WriteBehindStatistics { pendingWrites?.statistics ?? WriteBehindStatistics() }

    /// Creates a cache.
    public convenience init(configuration: Configuration = Configuration()) {
        self.init(configuration: configuration, memoryTier: nil)
    }

    /// A cache whose memory tier is `memoryTier` instead of one of its own (the image pipeline's,
    /// which keeps validated images); nil gives it its own as ``Configuration/memoryCostLimit`` says.
    init(configuration: Configuration, memoryTier: (any HTTPMemoryTier)?) {
        self.configuration = configuration
        origin = OriginFetcher(configuration: configuration)
        memory =
            memoryTier
            ?? (configuration.memoryCostLimit > 0
                ? EntryMemoryTier(
                    entries: MemoryCache(costLimit: configuration.memoryCostLimit, countLimit: configuration.memoryCountLimit))
                : nil)
        let disk = configuration.store.map { DiskTier(store: $0) }
        let storageFailureLog = StorageFailureLog(logger: configuration.logger)
        self.disk = disk
        self.storageFailureLog = storageFailureLog
        pendingWrites = disk.map {
            WriteBehindQueue(disk: $0, limits: configuration.writeBehind, failures: storageFailureLog)
        }
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
        try await response(for: request, accepting: acceptor, progress: progress, lookup: nil)
    }

    /// ``response(for:accepting:progress:)`` after `lookup`, a look-up the caller made ahead of the
    /// load (``lookUp(plainRequestFor:override:readingMemory:)``): what it found answers instead of
    /// reading the tiers again, so one load reads storage once and counts one hit or miss.
    func response(
        for request: HTTPCacheRequest, accepting acceptor: any ResponseBodyAcceptor, progress: ProgressHandler?,
        lookup: Lookup?
    ) async throws(HTTPCacheError) -> HTTPCacheResponse {
        var transaction = transaction(for: request, accepting: acceptor, progress: progress)
        if let lookup, lookup.key == transaction.key, transaction.request.mode != .noStore {
            transaction.lookup = lookup
        }
        do {
            return try await respond(to: transaction)
        } catch {
            throw HTTPCacheError(error, transport: configuration.transport)
        }
    }

    /// The rules a request is judged by: the configured evaluator with the request's override
    /// (nil: the configured one) and the store's fingerprint key.
    func evaluator(override: FreshnessOverride?) -> CachePolicyEvaluator {
        var evaluator = configuration.evaluator
        if let override { evaluator.override = override }
        evaluator.fingerprintKey = fingerprintKey
        return evaluator
    }

    /// `request` under its key and rules; one without a cache (credentials that are not stored) bypasses it.
    func transaction(
        for request: HTTPCacheRequest, accepting acceptor: any ResponseBodyAcceptor, progress: ProgressHandler?
    ) -> Transaction {
        var request = request
        if configuration.credentialedResponses == .notStored, request.mode == .default,
            CredentialFields.present(in: request.headers)
        {
            request.mode = .noStore
        }
        let urlKey = request.cacheKey ?? configuration.cacheKey(request.url)
        return Transaction(
            request: request, key: storageKey(urlKey, headers: request.headers), urlKey: urlKey,
            evaluator: evaluator(override: request.freshnessOverride), acceptor: acceptor, progress: progress)
    }

    /// Waits for background work (`stale-while-revalidate` refreshes) to finish.
    public func waitForBackgroundWork() async {
        await background.waitUntilIdle()
    }

    /// Waits until every write to the disk tier made before the call (a store, an update after a
    /// validation, a derived body) has been committed to the store, or has failed (counted in
    /// ``storageFailures``). Loads never wait for the disk; call this before another process
    /// reads the store, before the process exits, or before asking the store what it holds.
    ///
    /// Committed means handed to the store: whether it is synced to stable storage yet is the
    /// store's `Durability`.
    public func waitForPendingWrites() async {
        await pendingWrites?.waitUntilCommitted()
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
        /// The look-up made ahead of the load, if one was: it stands for reading the tiers.
        var lookup: Lookup? = nil

        var head: HTTPRequestHead { request.head }

        /// A `GET` without header fields of its own: the request ``CachePolicyEvaluator/plainReuse(of:summary:)`` judges for.
        var isPlain: Bool { request.method == "GET" && request.headers.isEmpty }

        /// The rule book's judgement of `entry` for this request, when it is plain; nil otherwise.
        func plainReuse(of entry: StoredEntry) -> PlainReuse? {
            isPlain ? evaluator.plainReuse(of: entry.response, summary: entry.freshness) : nil
        }

        /// `entry` with its freshness summary made under this request's rules: made once when a
        /// response is stored, for the memory tier's judgement and the disk tier's attributes alike.
        func summarised(_ entry: StoredEntry) -> StoredEntry {
            var entry = entry
            entry.freshness = StoredFreshness(entry.response, evaluator: evaluator)
            return entry
        }
    }
}
