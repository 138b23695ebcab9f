import CacheStorage
import Foundation
import ImageCache
import LoopbackOrigin
import TestSupport
import Testing

@Suite("Pipeline policies")
struct PipelinePolicyTests {
    static let png = TestImages.png(seed: 3)

    /// An origin serving the PNG with `extra` headers and a current Date.
    static func serving(_ extra: (String, String)...) -> LoopbackOrigin.Handler {
        { _ in OriginResponse(headers: headers(extra), body: png) }
    }

    @Test("withViewCycle never reads or writes a shared tier")
    func viewCycle() async throws {
        let fixture = try await PipelineFixture(handler: Self.serving(("Cache-Control", "max-age=3600")))
        let request = fixture.request("/a.png", policy: .withViewCycle)
        let first = try await fixture.pipeline.image(for: request)
        #expect(first.source == .network)
        #expect(first.data == Self.png)
        #expect(first.info.format == .png)
        #expect(first.info.pixelWidth == 32)
        let second = try await fixture.pipeline.image(for: request)
        #expect(second.source == .network)
        #expect(fixture.originHits("/a.png") == 2)
        await fixture.pipeline.waitForPendingWrites()
        #expect(try fixture.store.statistics().entries == 0)
        // And a persistent request afterwards finds nothing the view-cycle loads left behind.
        #expect(try await fixture.pipeline.image(for: fixture.request("/a.png")).source == .network)
    }

    @Test("duringAppSession uses memory only and never touches disk")
    func appSession() async throws {
        let fixture = try await PipelineFixture(handler: Self.serving(("Cache-Control", "no-cache")))
        let request = fixture.request("/s.png", policy: .duringAppSession)
        #expect(try await fixture.pipeline.image(for: request).source == .network)
        #expect(try await fixture.pipeline.image(for: request).source == .memory)
        #expect(fixture.originHits("/s.png") == 1)
        await fixture.pipeline.waitForPendingWrites()
        #expect(try fixture.store.statistics().entries == 0)
        fixture.pipeline.removeAllFromMemory()
        #expect(try await fixture.pipeline.image(for: request).source == .network)
    }

    @Test("a fetch carries the origin's headers as they arrived, whatever the policy; memory, what may be stored")
    func fetchedHeaders() async throws {
        let fixture = try await PipelineFixture(
            handler: Self.serving(
                ("Cache-Control", "max-age=3600, no-cache=\"X-Session\""), ("X-Session", "s-1"),
                ("Keep-Alive", "timeout=5")))
        for (index, policy) in [CachePolicy.withViewCycle, .duringAppSession, .persistent()].enumerated() {
            let request = fixture.request("/h\(index).png", policy: policy)
            let fetched = try #require(try await fixture.pipeline.image(for: request).http)
            #expect(fetched.headers.firstValue(for: "X-Session") == "s-1", "\(policy)")
            #expect(fetched.headers.firstValue(for: "Keep-Alive") == "timeout=5", "\(policy)")
        }
        // From memory: the stored response, without the connection's field and the one no-cache names.
        let again = try await fixture.pipeline.image(for: fixture.request("/h1.png", policy: .duringAppSession))
        #expect(again.source == .memory)
        let remembered = try #require(again.http)
        #expect(remembered.headers.firstValue(for: "X-Session") == nil)
        #expect(remembered.headers.firstValue(for: "Keep-Alive") == nil)
        #expect(remembered.headers.firstValue(for: "Cache-Control") != nil)
    }

    @Test("persistent: network, then memory, then disk after a relaunch")
    func persistent() async throws {
        let fixture = try await PipelineFixture(handler: Self.serving(("Cache-Control", "max-age=3600"), ("ETag", "\"v1\"")))
        let request = fixture.request("/p.png")
        #expect(try await fixture.pipeline.image(for: request).source == .network)
        #expect(try await fixture.pipeline.image(for: request).source == .memory)
        await fixture.pipeline.waitForPendingWrites()
        let metadata = try #require(try fixture.store.metadata(for: request.url.absoluteString))
        #expect(metadata.attributes.etag == "\"v1\"")
        #expect(metadata.attributes.format == "png")
        #expect(metadata.attributes.expiresAt.map { $0 > Date().addingTimeInterval(3000) } == true)
        let relaunched = try await fixture.relaunchedPipeline()
        let fromDisk = try await relaunched.image(for: request)
        #expect(fromDisk.source == .disk)
        #expect(fromDisk.data == Self.png)
        #expect(fixture.originHits("/p.png") == 1)
    }

    @Test("a stale entry is revalidated with If-None-Match; a 304 refreshes headers and keeps the bytes")
    func revalidation() async throws {
        let fixture = try await PipelineFixture { request in
            if request.header("If-None-Match") == "\"v1\"" {
                return OriginResponse(status: 304, headers: headers(("ETag", "\"v1\""), ("Cache-Control", "max-age=0"), ("X-Seen", "revalidated")))
            }
            return OriginResponse(headers: headers(("ETag", "\"v1\""), ("Cache-Control", "max-age=0")), body: PipelinePolicyTests.png)
        }
        let request = fixture.request("/r.png")
        #expect(try await fixture.pipeline.image(for: request).source == .network)
        let second = try await fixture.pipeline.image(for: request)
        #expect(second.source == .revalidated)
        #expect(second.data == Self.png)
        #expect(second.http?.headers.firstValue(for: "X-Seen") == "revalidated")
        #expect(fixture.origin.requests.last?.header("If-None-Match") == "\"v1\"")
        await fixture.pipeline.waitForPendingWrites()
        let stored = try #require(try fixture.store.metadata(for: request.url.absoluteString))
        #expect(stored.attributes.etag == "\"v1\"")
    }

    @Test("no-store responses never reach disk")
    func noStore() async throws {
        let fixture = try await PipelineFixture(handler: Self.serving(("Cache-Control", "no-store")))
        let request = fixture.request("/n.png")
        #expect(try await fixture.pipeline.image(for: request).source == .network)
        #expect(try await fixture.pipeline.image(for: request).source == .network)
        await fixture.pipeline.waitForPendingWrites()
        #expect(try fixture.store.statistics().entries == 0)
    }

    @Test("offline: the origin stopped, a stale entry is served and marked stale; nothing cached is a typed error")
    func offline() async throws {
        let fixture = try await PipelineFixture(
            retry: RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(5)),
            handler: Self.serving(("Cache-Control", "max-age=0"), ("ETag", "\"o\"")))
        let request = fixture.request("/o.png")
        _ = try await fixture.pipeline.image(for: request)
        await fixture.origin.stop()
        let stale = try await fixture.pipeline.image(for: request)
        #expect(stale.source == .stale)
        #expect(stale.data == Self.png)
        let cacheOnly = try await fixture.pipeline.image(for: fixture.request("/o.png", access: .cacheOnly))
        #expect(cacheOnly.source == .stale)
        await #expect(throws: ImageLoadError.notCached(fixture.origin.url("/never.png"))) {
            try await fixture.pipeline.image(for: fixture.request("/never.png", access: .cacheOnly))
        }
    }
}
