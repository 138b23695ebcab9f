import CacheStorage
import Foundation
import ImageCache
import LoopbackOrigin
import TestSupport
import Testing

/// `maxBodyBytes` against what arrives, not what is announced: a compressed body counts as the bytes
/// it inflates to, and the transfer stops once they pass the limit.
@Suite("HTTPCache body limit")
struct BodyLimitTests {
    static let limit = 1024 * 1024

    /// 32 MiB of zeros in about 211 KB, announced below the 256 KiB a transport gathers whole; 64 MiB
    /// in about 423 KB, which streams. The origin writes 16 KB (which inflates past the limit), then
    /// waits for the client to hang up before writing on (up to a minute), so a cut is seen as one
    /// however loaded the run.
    @Test(
        "a small gzip body that inflates past maxBodyBytes fails as too large, and the transfer is cut off",
        arguments: [32, 64])
    func decompressionBombIsCutOff(mebibytes: Int) async throws {
        let bomb = GzipEncoder.zeros(count: mebibytes * 1024 * 1024)
        let origin = try await LoopbackOrigin.start { _ in
            OriginResponse(
                headers: headers(("Content-Encoding", "gzip"), ("Content-Type", "image/png"), ("Cache-Control", "max-age=3600")),
                body: bomb, bodyPacing: BodyPacing(chunkBytes: 4 * 1024, interval: .milliseconds(20), holdAfterBytes: 16 * 1024))
        }
        defer { Task { await origin.stop() } }
        let folder = TemporaryDirectory("body-limit")
        let store = try PersistentStore(directory: folder.url)
        defer { store.close() }
        var configuration = HTTPCache.Configuration(store: store)
        configuration.maxBodyBytes = Self.limit
        let cache = HTTPCache(configuration: configuration)
        let largest = Mutex(0)
        await #expect {
            _ = try await cache.response(
                for: HTTPCacheRequest(url: origin.url("/bomb.png")), accepting: AcceptAll(),
                progress: { received, _ in largest.withLock { $0 = max($0, received) } })
        } throws: { error in
            guard case let HTTPCacheError.bodyTooLarge(limit) = error else { return false }
            return limit == Self.limit
        }
        #expect(largest.withLock { $0 } <= Self.limit)
        // The client hung up early: the origin could not write the rest.
        try await eventually { !origin.deliveries.isEmpty }
        let delivery = try #require(origin.deliveries.first)
        #expect(!delivery.completed, "the origin wrote all \(delivery.bodyBytesWritten) bytes")
        #expect(delivery.bodyBytesWritten < bomb.count)
        await cache.waitForPendingWrites()
        #expect(try store.statistics().entries == 0)
    }

    struct AcceptAll: ResponseBodyAcceptor {}
}
