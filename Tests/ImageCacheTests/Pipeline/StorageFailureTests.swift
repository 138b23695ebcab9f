import CacheStorage
import Foundation
import ImageCache
import LoopbackOrigin
import TestSupport
import Testing

/// A disk cache that cannot store never fails a load (a store that refuses the key here; a full
/// disk in CachectlTests' full-disk suite).
@Suite("Loads survive a failing store")
struct StorageFailureTests {
    @Test("a key the store refuses: every load returns the fetched image, the failure is counted once per load, never thrown")
    func refusedKey() async throws {
        let png = PNGEncoder.encode(width: 16, height: 16) { x, y in (UInt8(x * 16), UInt8(y * 16), 0) }
        let origin = try await LoopbackOrigin.start { _ in
            OriginResponse(headers: [HeaderLine("Cache-Control", "max-age=3600")], body: png)
        }
        defer { Task { await origin.stop() } }
        let folder = TemporaryDirectory("refused-key")
        var storeConfiguration = StoreConfiguration()
        storeConfiguration.maxKeyBytes = 16  // shorter than any URL the origin has
        let store = try PersistentStore(directory: folder.url, configuration: storeConfiguration)
        defer { store.close() }
        let pipeline = ImagePipeline(configuration: .init(diskCache: store))
        for attempt in 1...3 {
            let request = ImageRequest(url: origin.url("/refused/\(attempt).png"), policy: .persistent())
            let response = try await pipeline.image(for: request)
            #expect(response.source == .network)
            #expect(response.data == png)
        }
        await pipeline.waitForPendingWrites()  // the store refuses the key when the write commits
        #expect(pipeline.storageFailures.refused == 3)
        #expect(pipeline.storageFailures.total == 3)
        #expect(try store.statistics().entries == 0)
    }
}
