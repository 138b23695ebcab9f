import CacheStorage
import Foundation
import ImageCache
import LoopbackOrigin
import TestSupport
import Testing

/// `fetchDeadline` and `minimumTransferRate` against a real origin that dribbles or stalls: the
/// fetch ends at its bound with `FetchBoundExceeded`, the connection is closed, and the one fetch
/// slot is free for the next request.
@Suite("HTTPCache fetch bounds")
struct FetchBoundTests {
    /// A megabyte a transfer could never finish at the pace the origin keeps.
    static let body = Data(repeating: 0x5A, count: 1024 * 1024)

    static func cache(
        deadline: Duration?, rate: MinimumTransferRate?, store: PersistentStore
    ) -> HTTPCache {
        var configuration = HTTPCache.Configuration(store: store)
        configuration.maxConcurrentFetches = 1
        configuration.fetchDeadline = deadline
        configuration.minimumTransferRate = rate
        return HTTPCache(configuration: configuration)
    }

    /// An origin whose `/slow` answers at `pacing` (or after `delay`), and whose `/quick` answers at once.
    static func origin(pacing: BodyPacing?, delay: Duration = .zero) async throws -> LoopbackOrigin {
        try await LoopbackOrigin.start { request in
            if request.path == "/quick" {
                return OriginResponse(headers: headers(("Cache-Control", "max-age=3600")), body: Data("ok".utf8))
            }
            return OriginResponse(
                headers: headers(("Cache-Control", "max-age=3600")), body: body, delay: delay, bodyPacing: pacing)
        }
    }

    /// The next fetch through `cache` gets the one fetch slot: it is answered, or it ends at its
    /// own deadline, which counts only from when it holds the slot (on a machine whose threads are
    /// all busy, a quick answer can take longer than a short deadline). A slot never given back
    /// would hold it for ever, and the test would end at its time limit.
    static func expectSlotServes(_ cache: HTTPCache, _ origin: LoopbackOrigin, deadline: Duration) async {
        do {
            #expect(try await cache.response(for: HTTPCacheRequest(url: origin.url("/quick"))).head.status == 200)
        } catch {
            #expect(isBound(error) { $0 == .deadline(deadline) }, "the next fetch failed otherwise: \(error)")
        }
    }

    /// Whether `error` is the network failure the bound produces.
    static func isBound(_ error: any Error, _ matches: (FetchBoundExceeded) -> Bool) -> Bool {
        guard case let HTTPCacheError.network(failure) = error, let bound = failure.underlying as? FetchBoundExceeded
        else { return false }
        return !failure.isTransient && matches(bound)
    }

    @Test("a body dribbled at 400 bytes/s ends below the minimum rate, and its slot serves the next fetch",
          .timeLimit(.minutes(10)))
    func dribbleEndsAtMinimumRate() async throws {
        let origin = try await Self.origin(pacing: BodyPacing(chunkBytes: 40, interval: .milliseconds(100)))
        defer { Task { await origin.stop() } }
        let folder = TemporaryDirectory("fetch-bound")
        let store = try PersistentStore(directory: folder.url)
        defer { store.close() }
        let minimum = MinimumTransferRate(bytesPerSecond: 1024, window: .milliseconds(500))
        let cache = Self.cache(deadline: nil, rate: minimum, store: store)
        await #expect {
            _ = try await cache.response(for: HTTPCacheRequest(url: origin.url("/slow")))
        } throws: { error in
            Self.isBound(error) { if case .tooSlow(_, _, minimum) = $0 { true } else { false } }
        }
        // The one slot is free: the next fetch goes through.
        #expect(try await cache.response(for: HTTPCacheRequest(url: origin.url("/quick"))).head.status == 200)
        try await eventually { origin.deliveries.contains { $0.target == "/slow" } }
        let delivery = try #require(origin.deliveries.first { $0.target == "/slow" })
        #expect(!delivery.completed)
        await cache.waitForPendingWrites()
        #expect(try store.statistics().entries == 1)
    }

    @Test("a body that stalls after its first bytes ends at the deadline, and its slot serves the next fetch",
          .timeLimit(.minutes(10)))
    func stallEndsAtDeadline() async throws {
        let origin = try await Self.origin(pacing: BodyPacing(chunkBytes: 4096, interval: .seconds(3600)))
        defer { Task { await origin.stop() } }
        let folder = TemporaryDirectory("fetch-bound")
        let store = try PersistentStore(directory: folder.url)
        defer { store.close() }
        let cache = Self.cache(deadline: .seconds(5), rate: nil, store: store)
        await #expect {
            _ = try await cache.response(for: HTTPCacheRequest(url: origin.url("/slow")))
        } throws: { error in
            Self.isBound(error) { $0 == .deadline(.seconds(5)) }
        }
        await Self.expectSlotServes(cache, origin, deadline: .seconds(5))
    }

    @Test("a head that never comes ends at the deadline, before the idle timeout", .timeLimit(.minutes(10)))
    func silentOriginEndsAtDeadline() async throws {
        let origin = try await Self.origin(pacing: nil, delay: .seconds(3600))
        defer { Task { await origin.stop() } }
        let folder = TemporaryDirectory("fetch-bound")
        let store = try PersistentStore(directory: folder.url)
        defer { store.close() }
        let cache = Self.cache(deadline: .seconds(5), rate: .default, store: store)
        await #expect {
            _ = try await cache.response(for: HTTPCacheRequest(url: origin.url("/slow")))
        } throws: { error in
            Self.isBound(error) { $0 == .deadline(.seconds(5)) }
        }
        await Self.expectSlotServes(cache, origin, deadline: .seconds(5))
    }

    @Test("the pipeline's configuration bounds its fetches: a dribbled image fails with the bound as its cause",
          .timeLimit(.minutes(10)))
    func pipelineDribbleEnds() async throws {
        let image = PNGEncoder.encode(width: 600, height: 600) { x, y in (UInt8(x & 0xFF), UInt8(y & 0xFF), 7) }
        let origin = try await LoopbackOrigin.start { _ in
            OriginResponse(
                headers: headers(("Content-Type", "image/png"), ("Cache-Control", "max-age=3600")), body: image,
                bodyPacing: BodyPacing(chunkBytes: 40, interval: .milliseconds(100)))
        }
        defer { Task { await origin.stop() } }
        let folder = TemporaryDirectory("fetch-bound")
        let store = try PersistentStore(directory: folder.url)
        defer { store.close() }
        var configuration = ImagePipeline.Configuration(diskCache: store)
        configuration.maxConcurrentFetches = 1
        configuration.fetchDeadline = .seconds(2)
        configuration.minimumTransferRate = MinimumTransferRate(bytesPerSecond: 1024, window: .milliseconds(500))
        let pipeline = ImagePipeline(configuration: configuration)
        await #expect {
            _ = try await pipeline.image(for: ImageRequest(url: origin.url("/dribble.png")))
        } throws: { error in
            guard case let ImageLoadError.network(failure) = error else { return false }
            return failure.underlying is FetchBoundExceeded
        }
    }
}
