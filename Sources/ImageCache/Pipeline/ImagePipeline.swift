import CacheStorage
import Foundation

/// Loads images: memory tier, disk tier, then the network, as each request's policy says.
///
/// Identical requests in flight share one load (100 concurrent callers cost one fetch); a load
/// stops once every caller waiting on it has cancelled. Fetches are limited in number and ordered
/// by priority, transient failures are retried with backoff, and only validated images are ever
/// cached: an HTML error page with status 200 is refused with ``ImageLoadError/invalidImage(_:)``.
/// HTTP caching (RFC 9111) is `HTTPCache`'s; the pipeline adds image validation, the memory tier
/// of validated images, and the policies. A load never waits for the disk: what it stores is
/// committed behind it and read back meanwhile (``waitForPendingWrites()`` waits for it).
///
/// ```swift
/// let pipeline = ImagePipeline(configuration: .init(diskCache: try PersistentStore(directory: folder)))
/// let response = try await pipeline.image(for: ImageRequest(url: url))   // .persistent() by default
/// print(response.source)   // memory, disk, network, revalidated or stale
/// ```
public final class ImagePipeline: Sendable {
    /// The configuration the pipeline was made with.
    public let configuration: Configuration
    let memory: MemoryCache<MemoryKey, CachedImage>
    /// The memory tier as the HTTP cache keeps it, with the decoded variants of its entries.
    let memoryTier: ImageMemoryTier
    let loads = InFlightLoads()
    /// HTTP caching over the disk tier, with the pipeline's memory tier as its memory tier: all
    /// the pipeline may ask of the cache.
    let httpCache: HTTPCache.PipelineAccess
    private let background = BackgroundWork()
    /// Whether a persistent request has met this pipeline without a disk cache (said once).
    private let saidMemoryOnly = Mutex(false)
    /// This pipeline's place among the memory-pressure handlers, while it trims on pressure.
    private let pressureRegistration: MemoryPressureMonitor.Registration?

    /// Why this pipeline has no disk cache although it was made to have one (``shared``: the
    /// store at `PersistentStore.defaultDirectory` could not be opened); nil otherwise. Such a
    /// pipeline keeps persistent images in memory only.
    public let diskCacheUnavailable: StorageError?

    /// Creates a pipeline.
    ///
    /// Give ``Configuration/diskCache`` a store for ``CachePolicy/persistent(_:)`` requests (the
    /// default policy) to outlive the process, or use ``shared``, which has one.
    public convenience init(configuration: Configuration = Configuration()) {
        self.init(configuration: configuration, diskCacheUnavailable: nil)
    }

    init(configuration: Configuration, diskCacheUnavailable: StorageError?) {
        self.configuration = configuration
        self.diskCacheUnavailable = diskCacheUnavailable
        memory = MemoryCache(costLimit: configuration.memoryCostLimit, countLimit: configuration.memoryCountLimit)
        var http = HTTPCache.Configuration(store: configuration.diskCache, transport: configuration.transport)
        http.maxConcurrentFetches = configuration.maxConcurrentFetches
        http.maxBodyBytes = configuration.maxBodyBytes
        http.retry = configuration.retry
        http.requestTimeout = configuration.requestTimeout
        http.fetchDeadline = configuration.fetchDeadline
        http.minimumTransferRate = configuration.minimumTransferRate
        http.credentialedResponses = configuration.credentialedResponses
        http.writeBehind = configuration.writeBehind
        if let cacheKey = configuration.cacheKey { http.cacheKey = cacheKey }
        http.logger = configuration.logger
        memoryTier = ImageMemoryTier(images: memory)
        httpCache = HTTPCache.PipelineAccess(configuration: http, memoryTier: memoryTier)
        let images = memory
        pressureRegistration = configuration.memoryPressureMonitor?.register { images.trim(toCost: images.totalCost / 2) }
    }

    /// Loads the image for `request`; `progress` hears about body bytes as they arrive.
    ///
    /// A memory hit is answered on the caller's executor, without a hop: from the main actor it
    /// costs what ``cachedImage(for:)`` costs. Anything else (disk, network) runs off the caller's
    /// actor.
    /// - Throws: ``ImageLoadError``.
    public nonisolated(nonsending) func image(
        for request: ImageRequest, progress: (@Sendable (_ receivedBytes: Int, _ expectedBytes: Int?) -> Void)? = nil
    ) async throws(ImageLoadError) -> ImageResponse {
        let cacheKey = memoryKey(for: request)
        guard request.processing == nil else { return try await loadProcessed(request, bytesKey: cacheKey, progress: progress) }
        if let hit = memoryHit(for: request, cacheKey: cacheKey) { return hit }
        return try await loadBeyondMemory(request, cacheKey: cacheKey, progress: progress)
    }

    /// The stored fast path, then the coalesced load handed what it read: off the caller's actor,
    /// since a disk read or a fetch must not run on the main actor.
    @concurrent
    private func loadBeyondMemory(
        _ request: ImageRequest, cacheKey: MemoryKey, progress: (@Sendable (Int, Int?) -> Void)?
    ) async throws(ImageLoadError) -> ImageResponse {
        let lookup = lookUp(request, cacheKey: cacheKey)
        if let lookup, let hit = storedHit(lookup) { return hit }
        return try await coalescedLoad(request, cacheKey: cacheKey, lookup: lookup, progress: progress)
    }

    /// Everything but the fast paths, in its own function: its async frame (the coalescing
    /// closure, the error mapping) then costs nothing to a hit.
    private func coalescedLoad(
        _ request: ImageRequest, cacheKey: MemoryKey, lookup: HTTPCache.Lookup?, progress: (@Sendable (Int, Int?) -> Void)?
    ) async throws(ImageLoadError) -> ImageResponse {
        let key = InFlightLoads.Key(
            cacheKey: cacheKey.string, policy: request.policy, headers: request.headers, networkAccess: request.networkAccess,
            processing: request.processing, processedFormat: request.processedFormat)
        do {
            return try await loads.run(key, priority: request.priority.taskPriority, progress: progress) { shared in
                try await self.load(request, cacheKey: cacheKey, lookup: lookup, shared: shared)
            }
        } catch {
            throw ImageLoadError(error)
        }
    }

    /// The image for `request` if the memory tier may answer it now, without waiting: what a view
    /// shows on its first frame instead of a placeholder. Nil when only a load can tell.
    ///
    /// It answers exactly when ``image(for:progress:)`` would answer from memory without asking the
    /// HTTP cache: `duringAppSession` images, and `persistent` ones proved fresh when stored, requested
    /// without headers of their own.
    public func cachedImage(for request: ImageRequest) -> ImageResponse? {
        let bytesKey = memoryKey(for: request)
        return memoryHit(for: request, cacheKey: configuration.variantKey(for: request, memoryKey: bytesKey) ?? bytesKey)
    }

    /// Starts loading `requests` at low priority into the caches, without waiting.
    public func prefetch(_ requests: [ImageRequest]) {
        for request in requests {
            var lowPriority = request
            lowPriority.priority = .low
            let prefetch = lowPriority
            background.run { _ = try? await self.image(for: prefetch) }
        }
    }

    /// Loads in flight now (coalesced loads count once).
    public var loadsInFlight: Int { loads.count }

    /// Callers waiting on the loads in flight (each coalesced caller counts), so a test can tell
    /// when its callers have joined one load.
    package var callersWaiting: Int { loads.waiters }

    /// Removes everything from the memory tier.
    public func removeAllFromMemory() { memory.removeAll() }

    /// Removes the least recently used images from the memory tier until what it holds costs at
    /// most `cost` bytes: for a memory warning the platform does not signal itself.
    public func trim(toCost cost: Int) { memory.trim(toCost: cost) }

    /// What the memory tier holds, in bytes: encoded images, plus the pixels of decoded ones.
    public var memoryCost: Int { memory.totalCost }

    /// How often the disk cache failed to store, update or remove an image (a full disk, a
    /// read-only store, a key over its limit, a write dropped because too many waited for the
    /// disk). Loads never fail for it: they return the image they fetched (source
    /// ``ImageSource/network``), and each cause is logged once.
    public var storageFailures: StorageFailureCounts { httpCache.storageFailures }

    /// What the writes to the disk cache behind the loads have done, and what waits now.
    public var writeBehindStatistics: WriteBehindStatistics { httpCache.writeBehindStatistics }

    /// The memory tier's key for `request`: the configured key, partitioned by the request's
    /// credentials exactly as the HTTP cache partitions its storage
    /// (``Configuration/credentialedResponses``), so one user's image never answers another's
    /// request from memory either. A request without headers of its own keeps its precomputed key.
    func memoryKey(for request: ImageRequest) -> MemoryKey {
        let key = configuration.memoryKey(for: request)
        guard request.hasOwnHeaders else { return key }
        let partitioned = httpCache.storageKey(key.string, headers: request.headers)
        return partitioned == key.string ? key : MemoryKey(partitioned)
    }

    /// Waits for background work (prefetches, stale-while-revalidate refreshes) to finish.
    public func waitForBackgroundWork() async {
        await background.waitUntilIdle()
        await httpCache.waitForBackgroundWork()
    }

    /// Waits until every write to the disk cache made before the call (images stored, updated
    /// after a revalidation, thumbnails kept on disk) has been committed to the store, or has
    /// failed (counted in ``storageFailures``).
    ///
    /// A load returns without waiting for the disk; meanwhile this pipeline reads its own writes
    /// from the line they wait in. Call this before the process exits, before another process
    /// (or `cachectl`) reads the store, and before asking the store what it holds.
    ///
    /// ```swift
    /// _ = try await pipeline.image(for: request)
    /// await pipeline.waitForPendingWrites()   // now on disk
    /// ```
    public func waitForPendingWrites() async {
        await httpCache.waitForPendingWrites()
    }

    private func load(
        _ request: ImageRequest, cacheKey: MemoryKey, lookup: HTTPCache.Lookup?, shared: SharedLoad
    ) async throws -> ImageResponse {
        switch request.policy {
        case .withViewCycle:
            guard request.networkAccess == .allowed else { throw ImageLoadError.notCached(request.url) }
            return try await fetchUncached(request, shared: shared).response
        case .duringAppSession:
            if let hit = memory.value(for: cacheKey) { return hit.memoryResponse }
            guard request.networkAccess == .allowed else { throw ImageLoadError.notCached(request.url) }
            let fetched = try await fetchUncached(request, shared: shared)
            let image = fetched.cachedImage()
            memory.set(image, for: cacheKey, cost: image.cost)
            return fetched.response
        case let .persistent(override):
            if configuration.diskCache == nil { sayMemoryOnlyOnce() }
            return try await loadPersistent(request, override: override, lookup: lookup, shared: shared)
        }
    }

    /// A persistent request on a pipeline without a disk cache is kept in memory only: said once,
    /// so that the default request on a default pipeline does not silently persist nothing.
    private func sayMemoryOnlyOnce() {
        guard diskCacheUnavailable == nil, !saidMemoryOnly.withLock({ said in defer { said = true }; return said }) else { return }
        configuration.logger.notice(
            "A persistent request met a pipeline without a disk cache: its images are kept in memory only. Set ImagePipeline.Configuration.diskCache, or use ImagePipeline.shared.")
    }

    /// Fetches and validates `request` below the HTTP cache: the policies that keep no HTTP cache
    /// share its fetch slots and retries, and nothing is read from or written to storage.
    private func fetchUncached(_ request: ImageRequest, shared: SharedLoad) async throws -> UncachedFetch {
        let httpRequest = HTTPCacheRequest(url: request.url, headers: request.headers)
        let acceptor = ImageBodyAcceptor(validator: configuration.validator)
        let fetched = try await httpCache.fetchUncached(httpRequest, accepting: acceptor, progress: shared.report)
        guard let info = acceptor.validatedInfo else { throw ImageLoadError.httpStatus(fetched.head.status) }
        return UncachedFetch(fetched: fetched, info: info)
    }
}

extension ImageRequest.Priority {
    var taskPriority: TaskPriority {
        switch self {
        case .low: .low
        case .normal: .medium
        case .high: .high
        }
    }
}

extension ImageLoadError {
    /// Any error from a load, as the pipeline reports it.
    init(_ error: any Error) {
        switch error {
        case let error as ImageLoadError: self = error
        case let error as HTTPCacheError: self = ImageLoadError(error)
        case is CancellationError: self = .cancelled
        default: self = .network(NetworkFailure(message: "\(error)", isTransient: false, underlying: error))
        }
    }

    /// The HTTP cache's error in the pipeline's terms; a refusal is the acceptor's own error.
    private init(_ error: HTTPCacheError) {
        switch error {
        case let .network(failure): self = .network(failure)
        case let .bodyTooLarge(limit): self = .bodyTooLarge(limit: limit)
        case let .refused(reason): self = ImageLoadError(reason)
        case let .notCached(url): self = .notCached(url)
        case let .storage(error): self = .storage(StorageFailure(message: error.description, error: error))
        case .cancelled: self = .cancelled
        }
    }
}
