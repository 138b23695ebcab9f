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
        /// with ``ImageLoadError/notCached(_:)``.
        case cacheOnly
    }

    /// The image's URL.
    public var url: URL {
        get { storage.fields.url }
        set { update { $0.url = newValue } }
    }
    /// `url.absoluteString` as a hashed key, kept beside it: the default cache key, which a memory
    /// hit needs on every call and which `URL` rebuilds (allocating) each time it is asked.
    var urlKey: MemoryKey { storage.urlKey }
    /// Whether the request carries headers of its own, asked without copying them out (which costs
    /// a retain and a release on every memory hit).
    var hasOwnHeaders: Bool { !storage.fields.headers.isEmpty }
    /// Extra request headers (`Authorization`, `Accept`, `Cache-Control: no-cache` …).
    public var headers: HeaderFields {
        get { storage.fields.headers }
        set { update { $0.headers = newValue } }
    }
    /// How the shared caches are used. ``CachePolicy/persistent(_:)`` by default.
    public var policy: CachePolicy {
        get { storage.fields.policy }
        set { update { $0.policy = newValue } }
    }
    /// Fetch priority. ``Priority/normal`` by default.
    public var priority: Priority {
        get { storage.fields.priority }
        set { update { $0.priority = newValue } }
    }
    /// The cache key, when it should not be the URL (for example a signed URL without its token).
    /// When nil, the pipeline's ``ImagePipeline/Configuration/cacheKey`` function decides.
    public var cacheKey: String? {
        get { storage.fields.cacheKey }
        set { update { $0.cacheKey = newValue } }
    }
    /// Whether the network may be used.
    public var networkAccess: NetworkAccess {
        get { storage.fields.networkAccess }
        set { update { $0.networkAccess = newValue } }
    }
    /// What to decode the image to, when the caller wants pixels: the `ImageProcessing.original`
    /// image, a `.thumbnail(maxPixelSize:)` or a resized one. Nil (the default)
    /// loads the bytes only. The response's ``ImageResponse/decoded`` carries the result, and the
    /// memory tier keeps it under the processing's identifier, at the cost of its pixels.
    public var processing: ImageProcessing? {
        get { storage.fields.processing }
        set { update { $0.processing = newValue } }
    }
    /// The format a processed image is kept in as bytes: the thumbnail a persistent request keeps
    /// on disk, which its later memory hits carry as their ``ImageResponse/data``. Nil (the
    /// default) lets the pipeline choose: JPEG, or PNG where the pixels have transparency. A server
    /// that answers in the format a client accepts asks for that one, and each format is kept as
    /// a variant of its own, encoded from the original's pixels.
    public var processedFormat: EncodedFormat? {
        get { storage.fields.processedFormat }
        set { update { $0.processedFormat = newValue } }
    }
    /// The name the processed image is kept under, in memory and on disk: the processing's
    /// identifier, and the format when one is asked for (`fit256x256`, `fit256x256.webp`).
    var variantName: String? { Self.variantName(storage.fields) }
    /// The memory key of the processed image for the URL's key, computed with the request.
    var urlVariantKey: MemoryKey? { storage.urlVariantKey }

    /// The fields, in one immutable box: a request is copied on every load, and copying the
    /// fields themselves costs a reference-count operation per URL, string and header list; the
    /// box costs one. A change makes a new box (requests are built once and rarely changed).
    private var storage: Storage

    /// Creates a request.
    public init(
        url: URL, headers: HeaderFields = [:], policy: CachePolicy = .persistent(), priority: Priority = .normal,
        cacheKey: String? = nil, networkAccess: NetworkAccess = .allowed, processing: ImageProcessing? = nil,
        processedFormat: EncodedFormat? = nil
    ) {
        storage = Storage(
            Fields(
                url: url, headers: headers, policy: policy, priority: priority, cacheKey: cacheKey,
                networkAccess: networkAccess, processing: processing, processedFormat: processedFormat))
    }

    /// The same request for the bytes alone: what a processed request loads before decoding.
    var forBytes: ImageRequest {
        guard processing != nil else { return self }
        var bytes = self
        bytes.update {
            $0.processing = nil
            $0.processedFormat = nil
        }
        return bytes
    }

    private mutating func update(_ change: (inout Fields) -> Void) {
        var fields = storage.fields
        change(&fields)
        storage = Storage(fields, urlKey: fields.url == storage.fields.url ? storage.urlKey : nil)
    }

    public static func == (lhs: ImageRequest, rhs: ImageRequest) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.fields == rhs.storage.fields
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(storage.fields)
    }
}

extension ImageRequest {
    /// What makes a request what it is, for equality and hashing.
    private struct Fields: Hashable, Sendable {
        var url: URL
        var headers: HeaderFields
        var policy: CachePolicy
        var priority: Priority
        var cacheKey: String?
        var networkAccess: NetworkAccess
        var processing: ImageProcessing?
        var processedFormat: EncodedFormat?
    }

    private static func variantName(_ fields: Fields) -> String? {
        guard let processing = fields.processing else { return nil }
        guard let format = fields.processedFormat else { return processing.identifier }
        return processing.identifier + "." + format.rawValue
    }

    /// An ``ImageRequest``'s fields and its URL's key, never changed once made.
    private final class Storage: Sendable {
        let fields: Fields
        let urlKey: MemoryKey
        let urlVariantKey: MemoryKey?

        /// - Parameter urlKey: the key of `fields.url` when already known, else computed here.
        init(_ fields: Fields, urlKey: MemoryKey? = nil) {
            self.fields = fields
            let urlKey = urlKey ?? MemoryKey(fields.url.absoluteString)
            self.urlKey = urlKey
            urlVariantKey = ImageRequest.variantName(fields).map { urlKey.variant(named: $0) }
        }
    }
}
