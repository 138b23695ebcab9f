import CacheStorage
import Foundation
import Logging

extension ImagePipeline {
    /// What a pipeline fetches through, where it caches, and its limits.
    public struct Configuration: Sendable {
        /// How images are fetched. A `URLSessionTransport` by default.
        public var transport: any HTTPTransport = URLSessionTransport()
        /// The disk tier for ``CachePolicy/persistent(_:)``; without one, persistent requests use
        /// memory only. Open one with `PersistentStore(directory:)`.
        public var diskCache: PersistentStore?
        /// The memory tier's cost limit: a quarter of physical memory, at most 512 MiB, by default.
        public var memoryCostLimit: Int = MemoryCache<String, Int>.defaultCostLimit
        /// The memory tier's entry limit. 1,000 by default.
        public var memoryCountLimit: Int = 1000
        /// What counts as an image, and the pixel limit (100 megapixels by default), which also
        /// bounds what a decode may allocate.
        public var validator = ImageValidator()
        /// Decodes images for requests with an ``ImageRequest/processing``: libvips on Linux, in
        /// decode worker processes so that a crafted image cannot take the app down
        /// (`DecodeIsolation.automatic`); ImageIO on Apple platforms. Thumbnails the pipeline
        /// stored itself are decoded with `decodeTrusted`, in the app's process.
        public var decoder: any ImageDecoder = PlatformImageDecoder()
        /// Encodes processed images (thumbnails) that a persistent request keeps on disk: libvips
        /// on Linux, ImageIO on Apple platforms, by default.
        public var encoder: any ImageEncoder = PlatformImageEncoder()
        /// Whether a processed image the pipeline keeps on disk is held in memory with its pixels,
        /// so that a memory hit carries ``ImageResponse/decoded``. True by default. A server that
        /// sends the stored bytes, and never draws them, sets it false: the memory tier then holds
        /// such an image as its encoded bytes alone (a fraction of its pixels' cost, so the
        /// originals and the decodes that thumbnails are resampled from stay in memory longer),
        /// its hits carry those bytes with `decoded` nil, and a thumbnail read from disk is not
        /// decoded.
        public var keepsProcessedPixels = true
        /// Fetches running at once; more wait, by priority. 6 by default.
        public var maxConcurrentFetches: Int = 6
        /// The largest body accepted, counted after `Content-Encoding` is undone. 50 MiB by default.
        public var maxBodyBytes: Int = 50 * 1024 * 1024
        /// What happens to images requested with `Authorization`, `Cookie` or `Proxy-Authorization`
        /// headers, in memory and on disk: kept for the same credentials only by default (see
        /// `HTTPCache.CredentialedResponses`).
        public var credentialedResponses: HTTPCache.CredentialedResponses = .partitionedByCredential
        /// Retries of transient failures.
        public var retry = RetryPolicy()
        /// How long a fetch may go without progress. 30 s by default.
        public var requestTimeout: Duration = .seconds(30)
        /// The longest one fetch may take, retries included, before it is ended and the load fails
        /// with `ImageLoadError.network` over `FetchBoundExceeded.deadline`. 60 s by default; nil
        /// sets no bound (see `HTTPCache.Configuration.fetchDeadline`).
        public var fetchDeadline: Duration? = .seconds(60)
        /// The slowest a body may arrive before its fetch is ended: 1 KiB/s over 10 s windows
        /// (`MinimumTransferRate.default`) by default; nil sets no bound.
        public var minimumTransferRate: MinimumTransferRate? = .default
        /// The cache key for a URL when the request gives none; nil (the default) keys by the whole
        /// URL. Use it to drop a signed URL's token, for example.
        public var cacheKey: (@Sendable (URL) -> String)?
        /// The monitor whose signals halve the memory tier when the system is short of memory:
        /// Linux's pressure-stall information (`/proc/pressure/memory`, where the kernel has it) or
        /// Apple's memory-pressure source. The process's by default; `nil` when trimming is off.
        var memoryPressureMonitor: MemoryPressureMonitor? = .shared
        /// Whether the memory tier is halved when the system signals memory pressure (Linux's
        /// pressure-stall information, where the kernel has it; Apple's memory-pressure events).
        /// True by default.
        public var trimsMemoryOnPressure: Bool {
            get { memoryPressureMonitor != nil }
            set { memoryPressureMonitor = newValue ? .shared : nil }
        }
        /// How much may wait in memory for the disk cache: images are stored, updated after a
        /// revalidation and thumbnails kept on disk behind the load, which never waits for the
        /// disk (``ImagePipeline/waitForPendingWrites()`` does). 256 writes and 64 MiB of bodies
        /// by default; past either a write is dropped, counted in
        /// `StorageFailureCounts.queueFull` (``ImagePipeline/storageFailures``) and logged.
        public var writeBehind = WriteBehindLimits()
        /// Where the pipeline and its HTTP cache say what went wrong (each cause once).
        public var logger = Logger(label: "ImageCache.ImagePipeline")

        /// The defaults, with `diskCache` for persistent requests.
        public init(diskCache: PersistentStore? = nil) {
            self.diskCache = diskCache
        }

        /// The key `request` is cached under: its own ``ImageRequest/cacheKey``, else ``cacheKey``'s
        /// for its URL, else the whole URL.
        public func key(for request: ImageRequest) -> String {
            request.cacheKey ?? cacheKey?(request.url) ?? request.urlKey.string
        }

        /// ``key(for:)`` with its hash; for the default key, the one the request computed once.
        func memoryKey(for request: ImageRequest) -> MemoryKey {
            request.cacheKey == nil && cacheKey == nil ? request.urlKey : MemoryKey(key(for: request))
        }

        /// The memory key of `request`'s processed image, given its bytes' `memoryKey`; for the
        /// default key, the one the request computed once.
        func variantKey(for request: ImageRequest, memoryKey: MemoryKey) -> MemoryKey? {
            guard let name = request.variantName else { return nil }
            if memoryKey == request.urlKey, let precomputed = request.urlVariantKey { return precomputed }
            return memoryKey.variant(named: name)
        }
    }
}
