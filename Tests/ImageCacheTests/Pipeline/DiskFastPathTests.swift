import CacheStorage
import Foundation
import ImageCache
import LoopbackOrigin
import TestSupport
import Testing

/// The disk fast path (a fresh stored image read on the caller's task) serves only what the HTTP
/// cache would serve from disk; each test stores a response one rule away from being reusable,
/// relaunches, and checks that the origin is asked exactly as RFC 9111 says.
@Suite("Disk fast path")
struct DiskFastPathTests {
    static let png = TestImages.png(seed: 1)

    /// An origin answering `lines` (plus an ETag) with the image, and 304 to a matching If-None-Match.
    static func origin(_ lines: (String, String)...) -> LoopbackOrigin.Handler {
        { request in
            let all = headers(lines + [("ETag", "\"d\"")])
            if request.header("If-None-Match") == "\"d\"" { return OriginResponse(status: 304, headers: all) }
            return OriginResponse(headers: all, body: png)
        }
    }

    @Test("a fresh image comes from disk with its Age, then from memory; the origin is not asked")
    func freshHit() async throws {
        let fixture = try await PipelineFixture(handler: Self.origin(("Cache-Control", "max-age=3600")))
        let request = fixture.request("/fresh.png")
        #expect(try await fixture.pipeline.image(for: request).source == .network)
        let relaunched = try await fixture.relaunchedPipeline()
        let fromDisk = try await relaunched.image(for: request)
        #expect(fromDisk.source == .disk)
        #expect(fromDisk.data == Self.png)
        #expect(fromDisk.info.format == .png)
        #expect(fromDisk.http?.status == 200)
        #expect(fromDisk.http?.headers["Age"].flatMap(Int.init) != nil)
        #expect(fromDisk.http?.headers["ETag"] == "\"d\"")
        #expect(relaunched.cachedImage(for: request)?.source == .memory)
        #expect(try await relaunched.image(for: request).source == .memory)
        #expect(fixture.originHits("/fresh.png") == 1)
    }

    @Test("a stale stored image is revalidated, never served from disk")
    func staleEntry() async throws {
        let fixture = try await PipelineFixture(handler: Self.origin(("Cache-Control", "max-age=0")))
        let request = fixture.request("/stale.png")
        #expect(try await fixture.pipeline.image(for: request).source == .network)
        let relaunched = try await fixture.relaunchedPipeline()
        #expect(try await relaunched.image(for: request).source == .revalidated)
        #expect(fixture.origin.requests.last?.header("If-None-Match") == "\"d\"")
    }

    @Test("a response with no-cache is revalidated even while fresh")
    func noCache() async throws {
        let fixture = try await PipelineFixture(handler: Self.origin(("Cache-Control", "no-cache, max-age=3600")))
        let request = fixture.request("/no-cache.png")
        _ = try await fixture.pipeline.image(for: request)
        let relaunched = try await fixture.relaunchedPipeline()
        #expect(try await relaunched.image(for: request).source == .revalidated)
        #expect(fixture.originHits("/no-cache.png") == 2)
    }

    @Test("a variant stored for other request headers is not served to a plain request")
    func varyingResponse() async throws {
        let fixture = try await PipelineFixture(handler: Self.origin(("Cache-Control", "max-age=3600"), ("Vary", "Accept")))
        var withAccept = fixture.request("/vary.png")
        withAccept.headers = ["Accept": "image/webp"]
        _ = try await fixture.pipeline.image(for: withAccept)
        let relaunched = try await fixture.relaunchedPipeline()
        let plain = fixture.request("/vary.png")
        let response = try await relaunched.image(for: plain)
        #expect(response.source == .network || response.source == .revalidated)
        #expect(fixture.originHits("/vary.png") == 2)
    }

    @Test("a request with headers of its own goes to the HTTP cache, which honours them")
    func requestHeaders() async throws {
        let fixture = try await PipelineFixture(handler: Self.origin(("Cache-Control", "max-age=3600")))
        _ = try await fixture.pipeline.image(for: fixture.request("/h.png"))
        let relaunched = try await fixture.relaunchedPipeline()
        var request = fixture.request("/h.png")
        request.headers = ["Cache-Control": "max-age=0"]
        #expect(try await relaunched.image(for: request).source == .revalidated)
        #expect(fixture.originHits("/h.png") == 2)
    }

    @Test("the caller's override decides freshness: stale by its headers, fresh by a minimum time to live")
    func override() async throws {
        let fixture = try await PipelineFixture(handler: Self.origin(("Cache-Control", "max-age=0")))
        _ = try await fixture.pipeline.image(for: fixture.request("/o.png"))
        let relaunched = try await fixture.relaunchedPipeline()
        let atLeastAnHour = fixture.request("/o.png", policy: .persistent(.minimumTimeToLive(.seconds(3600))))
        #expect(try await relaunched.image(for: atLeastAnHour).source == .disk)
        #expect(fixture.originHits("/o.png") == 1)
        // The memory copy was proved fresh for the override only; a plain request revalidates.
        #expect(relaunched.cachedImage(for: fixture.request("/o.png")) == nil)
        #expect(try await relaunched.image(for: fixture.request("/o.png")).source == .revalidated)
    }

    @Test("an entry not written by the pipeline is validated as an image before it is served")
    func foreignEntry() async throws {
        let fixture = try await PipelineFixture(handler: Self.origin(("Cache-Control", "max-age=3600")))
        let request = fixture.request("/foreign.png")
        // Stored through the plain HTTP cache: a response with no image description.
        let cache = HTTPCache(configuration: .init(store: fixture.store))
        #expect(try await cache.response(for: HTTPCacheRequest(url: request.url)).head.status == 200)
        await cache.waitForPendingWrites()  // another cache's writes: this pipeline reads them from disk
        let response = try await fixture.pipeline.image(for: request)
        #expect(response.source == .disk)
        #expect(response.info.format == .png)
        #expect(fixture.originHits("/foreign.png") == 1)
    }

    @Test("an entry stored without a freshness summary (an earlier release's) is judged from its headers")
    func entryWithoutSummary() async throws {
        let fixture = try await PipelineFixture(handler: Self.origin(("Cache-Control", "max-age=3600")))
        let now = Date()
        for (path, maxAge) in [("/v1-fresh.png", 3_600), ("/v1-stale.png", 0)] {
            let stored = StoredResponse(
                status: 200,
                headers: ["Date": HTTPDate.string(from: now), "Cache-Control": "max-age=\(maxAge)", "ETag": "\"d\""],
                requestTime: now, responseTime: now)
            let attributes = EntryAttributes(
                responseHeaders: stored.encoded(), format: "png", pixelWidth: 8, pixelHeight: 8)
            try await fixture.store.put(NewEntry(key: fixture.origin.url(path).absoluteString, data: Self.png, attributes: attributes))
        }
        #expect(try await fixture.pipeline.image(for: fixture.request("/v1-fresh.png")).source == .disk)
        #expect(try await fixture.pipeline.image(for: fixture.request("/v1-stale.png")).source == .revalidated)
        #expect(fixture.originHits("/v1-fresh.png") == 0)
        #expect(fixture.originHits("/v1-stale.png") == 1)
    }

    /// The store's hit and miss counters after `fixture`'s pending accesses are recorded.
    static func counted(_ store: PersistentStore) async throws -> (hits: Int, misses: Int) {
        try await store.flush()
        let statistics = try store.statistics()
        return (statistics.hits, statistics.misses)
    }

    @Test("a load reads the store once: a cold miss counts one miss, a disk hit and a revalidation one hit each")
    func oneReadPerLoad() async throws {
        let fixture = try await PipelineFixture(handler: Self.origin(("Cache-Control", "max-age=3600")))
        let staleOrigin = try await PipelineFixture(handler: Self.origin(("Cache-Control", "max-age=0")))
        #expect(try await fixture.pipeline.image(for: fixture.request("/once.png")).source == .network)
        #expect(try await Self.counted(fixture.store) == (hits: 0, misses: 1))
        let relaunched = try await fixture.relaunchedPipeline()
        #expect(try await relaunched.image(for: fixture.request("/once.png")).source == .disk)
        let reopened = try PersistentStore(directory: fixture.folder.url)
        defer { reopened.close() }
        #expect(try await Self.counted(reopened) == (hits: 1, misses: 1))

        #expect(try await staleOrigin.pipeline.image(for: staleOrigin.request("/again.png")).source == .network)
        let staleRelaunched = try await staleOrigin.relaunchedPipeline()
        #expect(try await staleRelaunched.image(for: staleOrigin.request("/again.png")).source == .revalidated)
        let staleStore = try PersistentStore(directory: staleOrigin.folder.url)
        defer { staleStore.close() }
        #expect(try await Self.counted(staleStore) == (hits: 1, misses: 1))
    }

    @Test("no-cache under an override, and a qualified no-cache, are served from disk as the full rule allows")
    func noCacheTheRuleAllows() async throws {
        let fixture = try await PipelineFixture(handler: { request in
            let directive = request.path == "/lifted.png" ? "no-cache, max-age=3600" : "no-cache=\"Set-Cookie\", max-age=3600"
            return OriginResponse(headers: headers(("Cache-Control", directive), ("ETag", "\"d\"")), body: Self.png)
        })
        let lifted = fixture.request("/lifted.png", policy: .persistent(.minimumTimeToLive(.seconds(60))))
        let qualified = fixture.request("/qualified.png")
        _ = try await fixture.pipeline.image(for: lifted)
        _ = try await fixture.pipeline.image(for: qualified)
        #expect(fixture.pipeline.cachedImage(for: lifted)?.source == .memory)
        #expect(fixture.pipeline.cachedImage(for: qualified)?.source == .memory)
        let relaunched = try await fixture.relaunchedPipeline()
        #expect(try await relaunched.image(for: lifted).source == .disk)
        #expect(try await relaunched.image(for: qualified).source == .disk)
        #expect(fixture.originHits("/lifted.png") == 1)
        #expect(fixture.originHits("/qualified.png") == 1)
    }
}
