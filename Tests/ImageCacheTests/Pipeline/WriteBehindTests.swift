import CacheStorage
import Foundation

@testable import HTTPCaching
@testable import ImageCache
import LoopbackOrigin
import Synchronization
import TestSupport
import Testing

/// Loads never wait for the disk: their writes wait in a bounded line behind them, are read back
/// from it until they commit, coalesce per key, and are dropped (counted) when the line is full.
///
/// Each test holds the line (`WriteBehindQueue.hold()`) where it looks at what is pending, so
/// that "not committed yet" is a fact the test sets up, not a race it hopes to win. The memory
/// tier is off (no entries), so every repeated load is answered by the disk tier or its line.
@Suite("Write-behind")
struct WriteBehindTests {
    /// A pipeline whose memory tier keeps nothing, on a store in `folder`.
    static func pipeline(
        _ folder: TemporaryDirectory, limits: WriteBehindLimits = WriteBehindLimits(),
        storeConfiguration: StoreConfiguration = StoreConfiguration()
    ) throws -> (ImagePipeline, PersistentStore) {
        let store = try PersistentStore(directory: folder.url, configuration: storeConfiguration)
        var configuration = ImagePipeline.Configuration(diskCache: store)
        configuration.memoryCountLimit = 0
        configuration.writeBehind = limits
        return (ImagePipeline(configuration: configuration), store)
    }

    static func line(of pipeline: ImagePipeline) throws -> WriteBehindQueue {
        try #require(pipeline.httpCache.cache.pendingWrites)
    }

    static let png = PNGEncoder.encode(width: 32, height: 32) { x, y in (UInt8(x * 8), UInt8(y * 8), 90) }

    @Test("a load's write is read back before it commits: an offline load right after it is served, nothing fetched")
    func readsItsOwnWrite() async throws {
        let origin = try await LoopbackOrigin.start { _ in
            OriginResponse(headers: headers(("Cache-Control", "max-age=3600")), body: Self.png)
        }
        defer { Task { await origin.stop() } }
        let folder = TemporaryDirectory("write-behind")
        let (pipeline, store) = try Self.pipeline(folder)
        defer { store.close() }
        let line = try Self.line(of: pipeline)
        line.hold()
        let url = origin.url("/a.png")

        let fetched = try await pipeline.image(for: ImageRequest(url: url))
        #expect(fetched.source == .network)
        #expect(try !store.contains(url.absoluteString), "held: nothing committed yet")
        let offline = try await pipeline.image(for: ImageRequest(url: url, networkAccess: .cacheOnly))
        #expect(offline.source == .disk)
        #expect(offline.data == Self.png)
        let again = try await pipeline.image(for: ImageRequest(url: url))
        #expect(again.source == .disk)
        #expect(origin.requests.count == 1)
        #expect(pipeline.writeBehindStatistics.pendingWrites == 1)

        line.resume()
        await pipeline.waitForPendingWrites()
        #expect(try store.contains(url.absoluteString))
        #expect(pipeline.writeBehindStatistics.committed == 1)
        #expect(pipeline.writeBehindStatistics.pendingWrites == 0)
    }

    @Test("an update after a 304 is read back before it commits: the next load finds the image fresh and asks nobody")
    func readsItsOwnUpdate() async throws {
        let origin = try await LoopbackOrigin.start { request in
            if request.headers.first(where: { $0.name.lowercased() == "if-none-match" })?.value == "\"v1\"" {
                return OriginResponse(status: 304, headers: headers(("Cache-Control", "max-age=3600"), ("ETag", "\"v1\"")))
            }
            return OriginResponse(headers: headers(("Cache-Control", "max-age=0"), ("ETag", "\"v1\"")), body: Self.png)
        }
        defer { Task { await origin.stop() } }
        let folder = TemporaryDirectory("write-behind")
        let (pipeline, store) = try Self.pipeline(folder)
        defer { store.close() }
        let line = try Self.line(of: pipeline)
        let url = origin.url("/a.png")

        #expect(try await pipeline.image(for: ImageRequest(url: url)).source == .network)
        await pipeline.waitForPendingWrites()  // committed stale: the disk says "revalidate"
        line.hold()
        #expect(try await pipeline.image(for: ImageRequest(url: url)).source == .revalidated)
        let next = try await pipeline.image(for: ImageRequest(url: url))
        #expect(next.source == .disk, "the pending update's max-age=3600 answers, not the committed max-age=0")
        #expect(origin.requests.count == 2)

        line.resume()
        await pipeline.waitForPendingWrites()
        let stored = try #require(try store.metadata(for: url.absoluteString))
        #expect(stored.attributes.expiresAt.map { $0 > Date().addingTimeInterval(3000) } == true)
    }

    @Test("a thumbnail's variant is read back before it commits: an offline load right after it is the variant")
    func readsItsOwnVariant() async throws {
        let photo = PNGEncoder.encode(width: 300, height: 200) { _, _ in (200, 40, 30) }
        let origin = try await LoopbackOrigin.start { _ in
            OriginResponse(headers: headers(("Cache-Control", "max-age=3600")), body: photo)
        }
        defer { Task { await origin.stop() } }
        let folder = TemporaryDirectory("write-behind")
        let (pipeline, store) = try Self.pipeline(folder)
        defer { store.close() }
        let line = try Self.line(of: pipeline)
        line.hold()
        var request = ImageRequest(url: origin.url("/photo.png"))
        request.processing = .thumbnail(maxPixelSize: 60)

        let fetched = try await pipeline.image(for: request)
        #expect(fetched.source == .network && fetched.decoded?.pixelWidth == 60)
        #expect(pipeline.writeBehindStatistics.pendingWrites == 2, "the original and its variant")
        var offline = request
        offline.networkAccess = .cacheOnly
        let variant = try await pipeline.image(for: offline)
        #expect(variant.source == .disk)
        #expect(variant.data != photo, "the variant's own bytes, not the original decoded again")
        #expect(variant.info.pixelWidth == 60)
        #expect(origin.requests.count == 1)

        line.resume()
        await pipeline.waitForPendingWrites()
        #expect(try store.statistics().derivedEntries == 1)
        #expect(pipeline.writeBehindStatistics.committed == 2)
    }

    @Test("writes of one key coalesce while they wait: five stores, one commit")
    func coalesces() async throws {
        // Stale at once and without a validator: every load fetches and stores again.
        let origin = try await LoopbackOrigin.start { _ in
            OriginResponse(headers: headers(("Cache-Control", "max-age=0")), body: Self.png)
        }
        defer { Task { await origin.stop() } }
        let folder = TemporaryDirectory("write-behind")
        let (pipeline, store) = try Self.pipeline(folder)
        defer { store.close() }
        let line = try Self.line(of: pipeline)
        line.hold()
        let url = origin.url("/a.png")
        for _ in 1...5 {
            #expect(try await pipeline.image(for: ImageRequest(url: url)).source == .network)
        }
        var statistics = pipeline.writeBehindStatistics
        #expect(statistics.accepted == 5)
        #expect(statistics.coalesced == 4)
        #expect(statistics.pendingWrites == 1)
        #expect(statistics.pendingBytes == Self.png.count)

        line.resume()
        await pipeline.waitForPendingWrites()
        statistics = pipeline.writeBehindStatistics
        #expect(statistics.committed == 1)
        #expect(try store.contains(url.absoluteString))
    }

    @Test("a full line drops the write, counted and never failing the load; by count and by bytes")
    func dropsWhenFull() async throws {
        let origin = try await LoopbackOrigin.start { _ in
            OriginResponse(headers: headers(("Cache-Control", "max-age=3600")), body: Self.png)
        }
        defer { Task { await origin.stop() } }
        let folder = TemporaryDirectory("write-behind")
        let (pipeline, store) = try Self.pipeline(folder, limits: WriteBehindLimits(maxPendingWrites: 2))
        defer { store.close() }
        let line = try Self.line(of: pipeline)
        line.hold()
        for index in 1...5 {
            let response = try await pipeline.image(for: ImageRequest(url: origin.url("/\(index).png")))
            #expect(response.source == .network && response.data == Self.png)
        }
        #expect(pipeline.storageFailures.queueFull == 3)
        #expect(pipeline.storageFailures.total == 3)
        line.resume()
        await pipeline.waitForPendingWrites()
        #expect(try store.statistics().entries == 2)
        #expect(try store.contains(origin.url("/1.png").absoluteString))
        #expect(try store.contains(origin.url("/2.png").absoluteString))

        let bytesFolder = TemporaryDirectory("write-behind")
        let (small, smallStore) = try Self.pipeline(bytesFolder, limits: WriteBehindLimits(maxPendingBytes: Self.png.count - 1))
        defer { smallStore.close() }
        #expect(try await small.image(for: ImageRequest(url: origin.url("/1.png"))).source == .network)
        await small.waitForPendingWrites()
        #expect(small.storageFailures.queueFull == 1)
        #expect(try smallStore.statistics().entries == 0)
    }

    @Test("waiting for pending writes returns once every write made before it has committed")
    func waitsForEveryWrite() async throws {
        let origin = try await LoopbackOrigin.start { _ in
            OriginResponse(headers: headers(("Cache-Control", "max-age=3600")), body: Self.png)
        }
        defer { Task { await origin.stop() } }
        let folder = TemporaryDirectory("write-behind")
        let (pipeline, store) = try Self.pipeline(folder)
        defer { store.close() }
        let line = try Self.line(of: pipeline)
        line.hold()
        let urls = (1...40).map { origin.url("/\($0).png") }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for url in urls { group.addTask { _ = try await pipeline.image(for: ImageRequest(url: url)) } }
            try await group.waitForAll()
        }
        #expect(pipeline.writeBehindStatistics.pendingWrites == urls.count)
        let waited = Atomic(false)
        let waiter = Task {
            await pipeline.waitForPendingWrites()
            waited.store(true, ordering: .sequentiallyConsistent)
        }
        try await Task.sleep(for: .milliseconds(50))
        let returnedEarly = waited.load(ordering: .sequentiallyConsistent)
        #expect(!returnedEarly, "nothing can have committed while held")
        line.resume()
        await waiter.value
        // More than one batch: every batch, not the first, has committed.
        for url in urls { #expect(try store.contains(url.absoluteString)) }
        #expect(pipeline.writeBehindStatistics.committed == urls.count)
        #expect(pipeline.writeBehindStatistics.pendingWrites == 0)
    }

    @Test("a store that fails while the line drains fails no load: counted as a failed store, and later loads go on")
    func failureWhileDraining() async throws {
        let origin = try await LoopbackOrigin.start { _ in
            OriginResponse(headers: headers(("Cache-Control", "max-age=3600")), body: Self.png)
        }
        defer { Task { await origin.stop() } }
        let folder = TemporaryDirectory("write-behind")
        var storeConfiguration = StoreConfiguration()
        storeConfiguration.maxEntryBytes = Self.png.count - 1  // the store refuses the body at commit
        let (pipeline, store) = try Self.pipeline(folder, storeConfiguration: storeConfiguration)
        defer { store.close() }
        for index in 1...3 {
            let response = try await pipeline.image(for: ImageRequest(url: origin.url("/\(index).png")))
            #expect(response.source == .network && response.data == Self.png)
        }
        await pipeline.waitForPendingWrites()
        #expect(pipeline.storageFailures.refused == 3)
        #expect(pipeline.storageFailures.total == 3)
        #expect(pipeline.writeBehindStatistics.committed == 0)
        #expect(try store.statistics().entries == 0)
        let later = try await pipeline.image(for: ImageRequest(url: origin.url("/1.png")))
        #expect(later.source == .network, "nothing was stored: fetched again, not failed")
    }

    @Test("an invalidation removes a write still waiting: a POST after a GET leaves nothing to serve or commit")
    func invalidationCancelsWaitingWrite() async throws {
        let origin = try await LoopbackOrigin.start { request in
            OriginResponse(headers: headers(("Cache-Control", "max-age=3600")), body: Data("\(request.method) body".utf8))
        }
        defer { Task { await origin.stop() } }
        let folder = TemporaryDirectory("write-behind")
        let store = try PersistentStore(directory: folder.url)
        defer { store.close() }
        let cache = HTTPCache(configuration: .init(store: store))
        let line = try #require(cache.pendingWrites)
        line.hold()
        let url = origin.url("/doc")
        #expect(try await cache.response(for: HTTPCacheRequest(url: url)).source == .network)
        #expect(try await cache.response(for: HTTPCacheRequest(url: url)).source == .cache(.disk))
        _ = try await cache.response(for: HTTPCacheRequest(url: url, method: "POST", body: Data("x".utf8)))
        #expect(cache.writeBehindStatistics.pendingWrites == 0, "the waiting store went with the invalidation")
        #expect(try await cache.response(for: HTTPCacheRequest(url: url)).source == .network)

        line.resume()
        await cache.waitForPendingWrites()
        #expect(cache.writeBehindStatistics.committed == 1, "only the GET after the POST")
        #expect(origin.requests.filter { $0.method == "GET" }.count == 2)
    }
}
