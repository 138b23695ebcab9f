import CacheStorage
import Foundation

@testable import ImageCache
import LoopbackOrigin
import TestSupport

/// A loopback origin serving images, a pipeline pointed at it, and a disk store in a
/// temporary folder: the real parts every pipeline test uses.
final class PipelineFixture: Sendable {
    let origin: LoopbackOrigin
    let folder = TemporaryDirectory("pipeline")
    let store: PersistentStore
    let pipeline: ImagePipeline

    init(
        retry: RetryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(5)), decoder: (any ImageDecoder)? = nil,
        pressureMonitor: MemoryPressureMonitor? = nil, minimumTransferRate: MinimumTransferRate? = .default,
        handler: @escaping LoopbackOrigin.Handler
    ) async throws {
        origin = try await LoopbackOrigin.start(handler: handler)
        store = try PersistentStore(directory: folder.url)
        var configuration = ImagePipeline.Configuration(diskCache: store)
        configuration.retry = retry
        // Not the default minute: these tests are about other things than the deadline (the
        // fetch-bound suite tests it), and a loaded run can keep the cooperative pool busy long
        // enough for a wall-clock bound to end the fetch a test watches. Ten minutes bounds a hang.
        configuration.fetchDeadline = .seconds(600)
        configuration.minimumTransferRate = minimumTransferRate
        if let decoder { configuration.decoder = decoder }
        if let pressureMonitor { configuration.memoryPressureMonitor = pressureMonitor }
        pipeline = ImagePipeline(configuration: configuration)
    }

    /// A second pipeline on a reopened store, as a relaunched app would have: the first one's
    /// writes committed, as an app's are before it exits.
    func relaunchedPipeline() async throws -> ImagePipeline {
        await pipeline.waitForPendingWrites()
        store.close()
        return ImagePipeline(configuration: .init(diskCache: try PersistentStore(directory: folder.url)))
    }

    func request(_ path: String, policy: CachePolicy = .persistent(), access: ImageRequest.NetworkAccess = .allowed) -> ImageRequest {
        ImageRequest(url: origin.url(path), policy: policy, networkAccess: access)
    }

    func originHits(_ path: String) -> Int {
        origin.requests.filter { $0.path == path }.count
    }

    deinit {
        // Closed before the folder goes, so no late flush writes into a removed folder.
        store.close()
        let origin = origin
        Task { await origin.stop() }
    }
}

/// Response headers for tests: `Date: now` and the given lines.
func headers(_ lines: [(String, String)]) -> [HeaderLine] {
    [HeaderLine("Date", OriginResponse.httpDate(Date()))] + lines.map { HeaderLine($0.0, $0.1) }
}

func headers(_ lines: (String, String)...) -> [HeaderLine] { headers(lines) }
