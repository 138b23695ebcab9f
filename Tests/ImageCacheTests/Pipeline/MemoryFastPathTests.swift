import Foundation
import ImageCache
import LoopbackOrigin
import TestSupport
import Testing

/// The memory fast path answers only what it can vouch for; everything else asks the HTTP cache.
@Suite("Memory fast path", .enabled(if: SharedFixtures.isAvailable))
struct MemoryFastPathTests {
    static let png = (try? PipelineFixture.corpusImage("real/png/basn4a08.png")) ?? Data()

    static func revalidating(maxAge: Int) -> LoopbackOrigin.Handler {
        { request in
            let lines = headers(("Cache-Control", "max-age=\(maxAge)"), ("ETag", "\"f\""))
            if request.header("If-None-Match") == "\"f\"" { return OriginResponse(status: 304, headers: lines) }
            return OriginResponse(headers: lines, body: png)
        }
    }

    @Test("an entry that has expired in memory is revalidated, not served")
    func expiredEntry() async throws {
        // max-age=6 against Date's one-second resolution: fresh for at least five seconds after
        // arrival. The memory hit is only expected while that surely holds (a loaded CI machine
        // can be slow); after seven seconds the entry is surely stale and must be revalidated.
        let fixture = try await PipelineFixture(handler: Self.revalidating(maxAge: 6))
        let request = fixture.request("/f.png")
        #expect(try await fixture.pipeline.image(for: request).source == .network)
        // Freshness counts from the response, so time is measured from its arrival.
        let arrived = ContinuousClock.now
        let second = try await fixture.pipeline.image(for: request).source
        if ContinuousClock.now - arrived < .seconds(4) { #expect(second == .memory) }
        try await Task.sleep(until: arrived + .seconds(7), clock: .continuous)
        #expect(try await fixture.pipeline.image(for: request).source == .revalidated)
        #expect(fixture.origin.requests.last?.header("If-None-Match") == "\"f\"")
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
}
