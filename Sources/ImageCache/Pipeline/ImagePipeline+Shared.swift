import CacheStorage
import Foundation
import Logging

extension ImagePipeline {
    /// The pipeline most apps need: the memory tier in front of a disk cache at
    /// `PersistentStore.defaultDirectory`, every other setting at its default.
    ///
    /// Made at its first use, which opens its disk cache. When the
    /// folder cannot be opened (a read-only home, a store from a newer version, another user's
    /// files) the pipeline still loads images, keeping them in memory only: the cause is logged
    /// once and kept in ``diskCacheUnavailable``.
    ///
    /// ```swift
    /// let response = try await ImagePipeline.shared.image(for: url)
    /// print(response.source)   // memory, disk, network, revalidated or stale
    /// ```
    public static let shared = ImagePipeline(diskCacheAt: PersistentStore.defaultDirectory)

    /// A pipeline with the default settings and its disk cache in `directory`, or in memory only,
    /// with the reason in ``diskCacheUnavailable``, when the store there cannot be opened.
    convenience init(diskCacheAt directory: URL) {
        do {
            self.init(configuration: Configuration(diskCache: try PersistentStore(directory: directory)))
        } catch {
            let failure = error as? StorageError ?? .io(path: directory.path, operation: "open", errno: 0, message: "\(error)")
            let configuration = Configuration()
            configuration.logger.warning(
                "The image cache at \(directory.path) cannot be opened (\(failure)): images are kept in memory only")
            self.init(configuration: configuration, diskCacheUnavailable: failure)
        }
    }

    /// Loads the image at `url` with the default request: ``CachePolicy/persistent(_:)``,
    /// normal priority, the network allowed.
    /// - Throws: ``ImageLoadError``.
    public nonisolated(nonsending) func image(for url: URL) async throws(ImageLoadError) -> ImageResponse {
        try await image(for: ImageRequest(url: url))
    }
}
