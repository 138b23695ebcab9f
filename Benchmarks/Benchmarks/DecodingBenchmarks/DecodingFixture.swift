import CacheStorage
import Foundation
import ImageCache
import LoopbackOrigin
import Synchronization

/// What the decoding benchmarks share, made once per benchmark process: the thumbnail set, a
/// large photo, an origin serving a photo, and a store holding 100 thumbnails as disk variants.
final class DecodingFixture: Sendable {
    enum Failure: Error {
        case miss
        case decodeFailed
        case wrongSource(ImageSource)
    }

    nonisolated(unsafe) static var current: DecodingFixture?
    static var shared: DecodingFixture { current! }

    let corpus: ThumbnailSet
    let photos: ThumbnailSet
    let largePhoto: Data
    let origin: LoopbackOrigin
    let folder: URL
    let store: PersistentStore
    /// Memory and disk: the memory-hit benchmark.
    let pipeline: ImagePipeline
    /// No memory tier: every load reads the disk.
    let diskOnlyPipeline: ImagePipeline
    let memoryThumbnail: ImageRequest
    let variantRequests: [ImageRequest]
    let variantKeys: [String]

    private init(
        corpus: ThumbnailSet, photos: ThumbnailSet, largePhoto: Data, origin: LoopbackOrigin, folder: URL, store: PersistentStore
    ) {
        self.corpus = corpus
        self.photos = photos
        self.largePhoto = largePhoto
        self.origin = origin
        self.folder = folder
        self.store = store
        pipeline = ImagePipeline(configuration: .init(diskCache: store))
        var diskOnly = ImagePipeline.Configuration(diskCache: store)
        diskOnly.memoryCountLimit = 0
        diskOnlyPipeline = ImagePipeline(configuration: diskOnly)
        var request = ImageRequest(url: origin.url("/memory.jpg"))
        request.processing = .thumbnail(maxPixelSize: 256)
        memoryThumbnail = request
        variantRequests = (0..<100).map { index in
            var request = ImageRequest(url: origin.url("/photo/\(index).jpg"))
            request.processing = .thumbnail(maxPixelSize: 256)
            return request
        }
        variantKeys = variantRequests.map { $0.url.absoluteString + " max256" }
    }

    static func make() async throws {
        let corpus = try ThumbnailSet.corpus()
        let photoSet = try ThumbnailSet.photos()
        let largePhoto = try Data(contentsOf: ThumbnailSet.generatedPhoto(width: 8000, height: 8000, seed: 99))
        // A 1600 × 1200 photo: what a feed's originals often are.
        let photo = try Data(contentsOf: ThumbnailSet.generatedPhoto(width: 1600, height: 1200, seed: 7))
        let origin = try await LoopbackOrigin.start { _ in
            OriginResponse(
                headers: [HeaderLine("Date", OriginResponse.httpDate(Date())), HeaderLine("Cache-Control", "max-age=86400"),
                          HeaderLine("Content-Type", "image/jpeg")],
                body: photo)
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("decoding-bench-\(UUID().uuidString)")
        var configuration = StoreConfiguration()
        configuration.byteLimit = 4 << 30
        let store = try PersistentStore(directory: folder, configuration: configuration)
        let fixture = DecodingFixture(
            corpus: corpus, photos: photoSet, largePhoto: largePhoto, origin: origin, folder: folder, store: store)
        // Through the pipeline itself, so the variants are what it stores.
        for request in fixture.variantRequests + [fixture.memoryThumbnail] { _ = try await fixture.pipeline.image(for: request) }
        for key in fixture.variantKeys where try !store.contains(key) { throw Failure.miss }
        current = fixture
    }

    func remove() async {
        store.close()
        await origin.stop()
        try? FileManager.default.removeItem(at: folder)
    }
}
