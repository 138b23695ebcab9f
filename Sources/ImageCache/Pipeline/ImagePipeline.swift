import CacheStorage
import Foundation

/// Loads images: memory tier, disk tier, then the network, as each request's policy says.
///
/// Identical requests in flight share one load (100 concurrent callers cost one fetch); a load
/// stops once every caller waiting on it has cancelled. Fetches are limited in number and ordered
/// by priority, transient failures are retried with backoff, and only validated images are ever
/// cached: an HTML error page with status 200 is refused with ``ImageLoadError/invalidImage(_:)``.
///
/// ```swift
/// let pipeline = ImagePipeline(configuration: .init(diskCache: try PersistentStore(directory: folder)))
/// let response = try await pipeline.image(for: ImageRequest(url: url))   // .persistent() by default
/// print(response.source)   // memory, disk, network, revalidated or stale
/// ```
public final class ImagePipeline: Sendable {
    /// The configuration the pipeline was made with.
    public let configuration: Configuration
    let memory: MemoryCache<String, CachedImage>
    let loads = InFlightLoads()
    let slots: FetchSlots
    let disk: DiskTier?
    private let backgroundWork = Mutex<[UUID: Task<Void, Never>]>([:])

    /// Creates a pipeline.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        memory = MemoryCache(costLimit: configuration.memoryCostLimit, countLimit: configuration.memoryCountLimit)
        slots = FetchSlots(limit: configuration.maxConcurrentFetches)
        disk = configuration.diskCache.map { DiskTier(store: $0) }
    }

    /// Loads the image for `request`; `progress` hears about body bytes as they arrive.
    /// - Throws: ``ImageLoadError``.
    public func image(
        for request: ImageRequest, progress: (@Sendable (_ receivedBytes: Int, _ expectedBytes: Int?) -> Void)? = nil
    ) async throws -> ImageResponse {
        let cacheKey = request.cacheKey ?? configuration.cacheKey(request.url)
        let key = InFlightLoads.Key(
            cacheKey: cacheKey, policy: request.policy, headers: request.headers, networkAccess: request.networkAccess)
        do {
            return try await loads.run(key, priority: request.priority.taskPriority, progress: progress) { shared in
                try await self.load(request, cacheKey: cacheKey, shared: shared)
            }
        } catch {
            throw ImageLoadError(error)
        }
    }

    /// Starts loading `requests` at low priority into the caches, without waiting.
    public func prefetch(_ requests: [ImageRequest]) {
        for request in requests {
            var lowPriority = request
            lowPriority.priority = .low
            let prefetch = lowPriority
            runInBackground { _ = try? await self.image(for: prefetch) }
        }
    }

    /// Loads in flight now (coalesced loads count once).
    public var loadsInFlight: Int { loads.count }

    /// Removes everything from the memory tier.
    public func removeAllFromMemory() { memory.removeAll() }

    func runInBackground(_ work: @escaping @Sendable () async -> Void) {
        let id = UUID()
        let task = Task(priority: .utility) {
            await work()
            _ = self.backgroundWork.withLock { $0.removeValue(forKey: id) }
        }
        backgroundWork.withLock { $0[id] = task }
    }

    /// Waits for background work (prefetches, stale-while-revalidate refreshes) to finish.
    public func waitForBackgroundWork() async {
        while let task = backgroundWork.withLock({ $0.values.first }) {
            await task.value
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    private func load(_ request: ImageRequest, cacheKey: String, shared: SharedLoad) async throws -> ImageResponse {
        switch request.policy {
        case .withViewCycle:
            guard request.networkAccess == .allowed else { throw ImageLoadError.notCached(request.url) }
            let fetched = try await fetch(request, conditionalHeaders: [:], shared: shared)
            return try fetched.image(or: request).response(.network)
        case .duringAppSession:
            if let hit = memory.value(for: cacheKey) { return hit.response(.memory) }
            guard request.networkAccess == .allowed else { throw ImageLoadError.notCached(request.url) }
            let image = try await fetch(request, conditionalHeaders: [:], shared: shared).image(or: request)
            memory.set(image, for: cacheKey, cost: image.cost)
            return image.response(.network)
        case let .persistent(override):
            return try await loadPersistent(
                request, cacheKey: cacheKey, evaluator: CachePolicyEvaluator(override: override), shared: shared)
        }
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
        case is CancellationError: self = .cancelled
        case let error as StorageError: self = .storage(StorageFailure(message: error.description))
        case let error as URLError where error.code == .cancelled: self = .cancelled
        case let error as URLError: self = .network(message: error.localizedDescription, transient: error.isTransient)
        default: self = .network(message: "\(error)", transient: false)
        }
    }
}

extension URLError {
    /// Failures that may go away by themselves: timeouts, dropped and refused connections.
    var isTransient: Bool {
        [.timedOut, .networkConnectionLost, .cannotConnectToHost, .notConnectedToInternet, .dnsLookupFailed,
         .cannotFindHost, .badServerResponse, .resourceUnavailable, .secureConnectionFailed].contains(code)
    }
}
