import CacheStorage
import Foundation
import Logging

extension HTTPCache {
    /// What a cache fetches through, where it stores, and its limits.
    ///
    /// ```swift
    /// var configuration = HTTPCache.Configuration(store: try PersistentStore(directory: folder))
    /// configuration.memoryCostLimit = 32 * 1024 * 1024   // keep hot bodies in memory too
    /// let cache = HTTPCache(configuration: configuration)
    /// ```
    public struct Configuration: Sendable {
        /// How requests reach the origin. A ``URLSessionTransport`` by default.
        public var transport: any HTTPTransport
        /// The disk tier; nil (the default) keeps responses in the memory tier only, if there is one.
        public var store: PersistentStore?
        /// The memory tier's limit in body bytes; 0 (the default) means no memory tier.
        public var memoryCostLimit: Int = 0
        /// The memory tier's entry limit. 1,000 by default.
        public var memoryCountLimit: Int = 1000
        /// The RFC 9111 rules, with heuristics and any freshness override. `CachePolicyEvaluator()` by default.
        public var evaluator = CachePolicyEvaluator()
        /// The largest body accepted, in bytes as delivered (after `Content-Encoding` is undone). 50 MiB
        /// by default. The transfer stops as soon as more has arrived, whatever `Content-Length`
        /// announced, and the load fails with ``HTTPCacheError/bodyTooLarge(limit:)``.
        public var maxBodyBytes: Int = 50 * 1024 * 1024
        /// Retries of transient failures, for idempotent methods only. None by default (`maxAttempts` 1).
        public var retry = RetryPolicy(maxAttempts: 1)
        /// At most this many exchanges with origins at once; nil (the default) sets no limit. A
        /// waiting exchange gets a slot by its task's priority, then in order, and keeps it until its
        /// body has been read (or dropped); a retry waits for a slot again after its delay.
        public var maxConcurrentFetches: Int?
        /// How long an exchange may go without progress. 30 s by default.
        public var requestTimeout: Duration = .seconds(30)
        /// The longest one fetch may take, from its first attempt's start to its body's end,
        /// retries and their delays included (waiting for a fetch slot is not). 60 s by default;
        /// nil sets no bound. Past it the exchange is ended and the fetch fails with
        /// ``HTTPCacheError/network(_:)`` over ``FetchBoundExceeded/deadline(_:)``, freeing its slot:
        /// ``requestTimeout`` alone lets an origin that sends a byte now and then hold it for ever.
        public var fetchDeadline: Duration? = .seconds(60)
        /// The slowest a response body may arrive, over whole windows after its head.
        /// ``MinimumTransferRate/default`` (1 KiB/s over 10 s windows) by default; nil sets no bound.
        /// A slower body ends the exchange with ``FetchBoundExceeded/tooSlow(receivedBytes:window:minimum:)``.
        public var minimumTransferRate: MinimumTransferRate? = .default
        /// Whether the cache answers like an HTTP intermediary when it can neither serve from storage
        /// nor reach the origin: with a `504 Gateway Timeout` it generates (source
        /// ``HTTPCacheResponse/Source/generated``), as RFC 9111 §5.2.1.7 and §5.2.2.2 describe, instead
        /// of throwing ``HTTPCacheError/notCached(_:)`` or ``HTTPCacheError/network(_:)``.
        /// False by default: a library caller usually wants the typed error.
        public var generatesGatewayTimeout = false
        /// The storage key for a URL when the request gives none: the whole URL by default. One
        /// response is kept per key; a response with `Vary` replaces any other variant.
        public var cacheKey: @Sendable (URL) -> String = { $0.absoluteString }
        /// What happens to responses to requests that carry `Authorization`, `Cookie` or
        /// `Proxy-Authorization`: ``CredentialedResponses/partitionedByCredential`` by default, so
        /// one user's response never answers another user, or a request without credentials, even
        /// when the origin forgets `Vary`.
        public var credentialedResponses: CredentialedResponses = .partitionedByCredential
        /// How much may wait in memory for the disk: responses are stored, updated after a
        /// validation and derived bodies kept behind the load, which never waits for the disk
        /// (``HTTPCache/waitForPendingWrites()`` does). 256 writes and 64 MiB of bodies by
        /// default; past either, a write is dropped and counted in ``StorageFailureCounts/queueFull``.
        public var writeBehind = WriteBehindLimits()
        /// Where the cache reports what it could not store (once per cause; see ``HTTPCache/storageFailures``).
        public var logger = Logger(label: "ImageCache.HTTPCache")
        /// The time the cache ages and judges freshness by, and stamps exchanges with: the system
        /// clock by default. A replay harness gives it a clock that moves only when its script
        /// pauses, so a rule's outcome never depends on how loaded the machine is.
        package var clock: @Sendable () -> Date = { Date() }

        /// The defaults, storing in `store` and fetching through `transport`.
        public init(store: PersistentStore? = nil, transport: any HTTPTransport = URLSessionTransport()) {
            self.store = store
            self.transport = transport
        }
    }
}
