import CacheStorage
import ImageCache
import Logging
import ServiceLifecycle

/// An image pipeline and its store as a swift-service-lifecycle `Service`: it runs until the
/// service group shuts down, then lets the pipeline's background work finish (stale-while-revalidate
/// refreshes) and the writes its loads left waiting for the disk commit (images, thumbnails),
/// flushes the store and closes it.
///
/// Put it before the server in the group: a group shuts its services down in reverse order, so
/// the server stops taking requests before the store closes.
///
/// ```swift
/// let service = ImagePipelineService(pipeline: pipeline, store: store, logger: logger)
/// let group = ServiceGroup(services: [service, server], gracefulShutdownSignals: [.sigterm], logger: logger)
/// try await group.run()
/// ```
public struct ImagePipelineService: Service {
    /// The pipeline whose background work is awaited on shutdown.
    public let pipeline: ImagePipeline
    /// The store flushed and closed on shutdown; nil for a pipeline without one.
    public let store: PersistentStore?
    private let logger: Logger

    /// A service for `pipeline` and `store`, saying what it does at shutdown through `logger`.
    public init(pipeline: ImagePipeline, store: PersistentStore?, logger: Logger = Logger(label: "ImageCache.Service")) {
        self.pipeline = pipeline
        self.store = store
        self.logger = logger
    }

    public func run() async throws {
        // Ends at graceful shutdown, or throws when the group cancels us: the store is closed either way.
        try? await gracefulShutdown()
        await shutDown()
    }

    /// Waits for the pipeline's background work and for the writes it left waiting for the
    /// disk, flushes the store and closes it.
    public func shutDown() async {
        await pipeline.waitForBackgroundWork()
        await pipeline.waitForPendingWrites()
        guard let store else { return }
        do {
            try await store.flush()
        } catch {
            logger.warning("The image store could not be flushed at shutdown: \(error)")
        }
        store.close()
        logger.info("The image store is flushed and closed.")
    }
}
