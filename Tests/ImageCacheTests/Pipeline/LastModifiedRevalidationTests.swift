import CacheStorage
import Foundation
import ImageCache
import LoopbackOrigin
import TestSupport
import Testing

/// Revalidation by date alone: an origin that sends `Last-Modified` and no `ETag`, end to end
/// through the pipeline, its disk tier and a real origin.
@Suite("Revalidation by Last-Modified")
struct LastModifiedRevalidationTests {
    static let first = TestImages.png(seed: 11)
    static let second = TestImages.png(seed: 12)
    static let firstModified = OriginResponse.httpDate(Date().addingTimeInterval(-3_600))

    @Test("a stale entry with only Last-Modified is revalidated with If-Modified-Since; a 304 without an ETag keeps its bytes, a change replaces them")
    func lastModifiedOnly() async throws {
        let changed = Mutex(false)
        let secondModified = OriginResponse.httpDate(Date().addingTimeInterval(-60))
        let fixture = try await PipelineFixture { request in
            let isChanged = changed.withLock { $0 }
            let modified = isChanged ? secondModified : Self.firstModified
            if request.header("If-Modified-Since") == modified {
                return OriginResponse(status: 304, headers: headers(("Cache-Control", "max-age=0"), ("X-Seen", "revalidated")))
            }
            return OriginResponse(
                headers: headers(("Cache-Control", "max-age=0"), ("Last-Modified", modified)),
                body: isChanged ? LastModifiedRevalidationTests.second : LastModifiedRevalidationTests.first)
        }
        let request = fixture.request("/dated.png")
        let fetched = try await fixture.pipeline.image(for: request)
        #expect(fetched.source == .network && fetched.data == Self.first)
        await fixture.pipeline.waitForPendingWrites()
        let stored = try #require(try fixture.store.metadata(for: request.url.absoluteString))
        #expect(stored.attributes.etag == nil)

        let revalidated = try await fixture.pipeline.image(for: request)
        #expect(revalidated.source == .revalidated)
        #expect(revalidated.data == Self.first)
        #expect(revalidated.http?.headers.firstValue(for: "X-Seen") == "revalidated")
        let asked = try #require(fixture.origin.requests.last)
        #expect(asked.header("If-Modified-Since") == Self.firstModified)
        #expect(asked.header("If-None-Match") == nil)

        // The 304 kept the stored date: a relaunched app asks with it again, and still gets a 304.
        let relaunched = try await fixture.relaunchedPipeline()
        let afterRelaunch = try await relaunched.image(for: request)
        #expect(afterRelaunch.source == .revalidated && afterRelaunch.data == Self.first)
        #expect(fixture.origin.requests.last?.header("If-Modified-Since") == Self.firstModified)

        // The image changes at the origin: the conditional request gets the new bytes, stored.
        changed.withLock { $0 = true }
        let replaced = try await relaunched.image(for: request)
        #expect(replaced.source == .network)
        #expect(replaced.data == Self.second)
        #expect(fixture.originHits("/dated.png") == 4)
    }
}
