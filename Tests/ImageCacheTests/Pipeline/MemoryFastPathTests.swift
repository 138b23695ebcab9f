import Foundation
import ImageCache
import LoopbackOrigin
import TestSupport
import Testing

/// The memory fast path answers only what it can vouch for; everything else asks the HTTP cache.
@Suite("Memory fast path")
struct MemoryFastPathTests {
    static let png = TestImages.png(seed: 4)

    static func revalidating(maxAge: Int) -> LoopbackOrigin.Handler {
        { request in
            let lines = headers(("Cache-Control", "max-age=\(maxAge)"), ("ETag", "\"f\""))
            if request.header("If-None-Match") == "\"f\"" { return OriginResponse(status: 304, headers: lines) }
            return OriginResponse(headers: lines, body: png)
        }
    }

    @Test("an entry that has expired in memory is revalidated, not served")
    func expiredEntry() async throws {
        // The response says max-age=6 with a Date no later than the moment the origin made it, so
        // eight seconds after that moment it is stale whatever the load on the machine; only then
        // is it asked for again. (That it is a memory hit while fresh is covered elsewhere: under
        // load no client-side clock can promise freshness, as RFC 9111 also counts response delay.)
        let generated = Mutex<ContinuousClock.Instant?>(nil)
        let fixture = try await PipelineFixture { request in
            let lines = headers(("Cache-Control", "max-age=6"), ("ETag", "\"f\""))
            if request.header("If-None-Match") == "\"f\"" { return OriginResponse(status: 304, headers: lines) }
            generated.withLock { $0 = $0 ?? ContinuousClock.now }
            return OriginResponse(headers: lines, body: MemoryFastPathTests.png)
        }
        let request = fixture.request("/f.png")
        #expect(try await fixture.pipeline.image(for: request).source == .network)
        let madeAt = try #require(generated.withLock { $0 })
        try await Task.sleep(until: madeAt + .seconds(8), clock: .continuous)
        #expect(try await fixture.pipeline.image(for: request).source == .revalidated)
        #expect(fixture.origin.requests.last?.header("If-None-Match") == "\"f\"")
    }

    @Test("a memory hit's Age counts the time the image has been held; a fetch keeps the origin's", arguments: [
        CachePolicy.persistent(), .duringAppSession,
    ])
    func memoryHitAge(policy: CachePolicy) async throws {
        let fixture = try await PipelineFixture { _ in
            OriginResponse(headers: headers(("Cache-Control", "max-age=3600"), ("Age", "5")), body: MemoryFastPathTests.png)
        }
        let request = fixture.request("/aged.png", policy: policy)
        let fetched = try await fixture.pipeline.image(for: request)
        #expect(fetched.source == .network)
        #expect(fetched.http?.headers["Age"] == "5")
        try await Task.sleep(for: .milliseconds(1_200))
        let hit = try await fixture.pipeline.image(for: request)
        #expect(hit.source == .memory)
        // At least the origin's 5 s plus the 1.2 s held, in whole seconds.
        let age = try #require(hit.http?.headers["Age"].flatMap { Int($0) })
        #expect(age >= 6 && age < 600, "Age \(age)")
        #expect(hit.http?.headers.values(for: "Age").count == 1)
        #expect(hit.http?.headers["Cache-Control"] == "max-age=3600")
    }

    @Test("a request's own Cache-Control: no-cache skips memory and revalidates")
    func requestDirectives() async throws {
        let fixture = try await PipelineFixture(handler: Self.revalidating(maxAge: 3600))
        var request = fixture.request("/g.png")
        #expect(try await fixture.pipeline.image(for: request).source == .network)
        #expect(try await fixture.pipeline.image(for: request).source == .memory)
        request.headers = ["Cache-Control": "no-cache"]
        #expect(try await fixture.pipeline.image(for: request).source == .revalidated)
        #expect(fixture.originHits("/g.png") == 2)
    }

    @Test("cachedImage answers from memory at once, exactly when a load would, and never loads")
    func cachedImage() async throws {
        let fixture = try await PipelineFixture(handler: Self.revalidating(maxAge: 3600))
        let request = fixture.request("/c.png")
        #expect(fixture.pipeline.cachedImage(for: request) == nil)
        #expect(fixture.originHits("/c.png") == 0)
        _ = try await fixture.pipeline.image(for: request)
        let cached = try #require(fixture.pipeline.cachedImage(for: request))
        #expect(cached.source == .memory)
        #expect(cached.data == Self.png)
        // Other policies and a request with its own headers: only a load can tell.
        #expect(fixture.pipeline.cachedImage(for: fixture.request("/c.png", policy: .withViewCycle)) == nil)
        #expect(fixture.pipeline.cachedImage(for: fixture.request("/c.png", policy: .persistent(.neverExpire))) == nil)
        var withHeaders = request
        withHeaders.headers = ["Accept": "image/png"]
        #expect(fixture.pipeline.cachedImage(for: withHeaders) == nil)
        fixture.pipeline.removeAllFromMemory()
        #expect(fixture.pipeline.cachedImage(for: request) == nil)
        #expect(fixture.originHits("/c.png") == 1)
    }

    @Test("from the main actor a memory hit never gives the actor up; a disk read runs off it")
    @MainActor
    func mainActorCaller() async throws {
        let fixture = try await PipelineFixture(handler: Self.revalidating(maxAge: 3600))
        let request = fixture.request("/m.png")
        #expect(try await fixture.pipeline.image(for: request).source == .network)
        // A main-actor job queued before a load runs before the load returns exactly when the
        // load gave the main actor up (the main actor runs its jobs in order).
        let interleaved = Flag()
        Task { @MainActor in interleaved.isSet = true }
        #expect(try await fixture.pipeline.image(for: request).source == .memory)
        #expect(!interleaved.isSet, "a memory hit hopped off the main actor")
        fixture.pipeline.removeAllFromMemory()
        Task { @MainActor in interleaved.isSet = true }
        #expect(try await fixture.pipeline.image(for: request).source == .disk)
        #expect(interleaved.isSet, "a disk read ran on the main actor")
    }

    @MainActor
    final class Flag {
        var isSet = false
    }

    @Test("a pipeline-wide cache key transform applies to memory hits too")
    func keyTransform() async throws {
        let origin = try await LoopbackOrigin.start(handler: Self.revalidating(maxAge: 3600))
        defer { Task { await origin.stop() } }
        var configuration = ImagePipeline.Configuration()
        configuration.transport = URLSessionTransport()
        configuration.cacheKey = { url in url.path }
        let pipeline = ImagePipeline(configuration: configuration)
        let signed = ImageRequest(url: origin.url("/k.png?token=1"), policy: .duringAppSession)
        let resigned = ImageRequest(url: origin.url("/k.png?token=2"), policy: .duringAppSession)
        #expect(try await pipeline.image(for: signed).source == .network)
        #expect(pipeline.configuration.key(for: resigned) == "/k.png")
        #expect(pipeline.cachedImage(for: resigned)?.source == .memory)
        #expect(try await pipeline.image(for: resigned).source == .memory)
        #expect(origin.requests.count == 1)
    }
}
