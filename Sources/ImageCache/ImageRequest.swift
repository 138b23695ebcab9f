import Foundation

/// What to load: a URL, how to cache it, and how to fetch it.
public struct ImageRequest: Sendable, Hashable {
    /// How urgent a load is; higher priorities get fetch slots first.
    public enum Priority: Int, Sendable, Hashable, Comparable {
        /// Prefetching.
        case low
        /// The default.
        case normal
        /// On screen now.
        case high

        public static func < (lhs: Priority, rhs: Priority) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// Whether a load may use the network.
    public enum NetworkAccess: Sendable, Hashable {
        /// Use the network as the cache policy requires (the default).
        case allowed
        /// Offline: answer from the caches only, stale or not (a stale answer says so), or fail
        /// with ``ImageLoadError/notCached``.
        case cacheOnly
    }

    /// The image's URL.
    public var url: URL {
        didSet { urlKey = CacheKey(url.absoluteString) }
    }
    /// `url.absoluteString` as a hashed key, kept beside it: the default cache key, which a memory
    /// hit needs on every call and which `URL` rebuilds (allocating) each time it is asked.
    private(set) var urlKey: CacheKey
    /// Extra request headers (`Authorization`, `Accept`, `Cache-Control: no-cache` …).
    public var headers: HeaderFields
    /// How the shared caches are used. ``CachePolicy/persistent(_:)`` by default.
    public var policy: CachePolicy
    /// Fetch priority. ``Priority/normal`` by default.
    public var priority: Priority
    /// The cache key, when it should not be the URL (for example a signed URL without its token).
    /// When nil, the pipeline's ``ImagePipeline/Configuration/cacheKey`` function decides.
    public var cacheKey: String?
    /// Whether the network may be used.
    public var networkAccess: NetworkAccess

    /// Creates a request.
    public init(
        url: URL, headers: HeaderFields = [:], policy: CachePolicy = .persistent(), priority: Priority = .normal,
        cacheKey: String? = nil, networkAccess: NetworkAccess = .allowed
    ) {
        self.url = url
        urlKey = CacheKey(url.absoluteString)
        self.headers = headers
        self.policy = policy
        self.priority = priority
        self.cacheKey = cacheKey
        self.networkAccess = networkAccess
    }
}
