import CacheStorage
import Foundation
import ImageCache
import LoopbackOrigin
import TestSupport
import Testing

/// A body the format gate refuses from its first bytes is not downloaded to its end: the pipeline
/// hangs up, and the origin's count of the bytes it managed to write shows it.
@Suite("Refused bodies stop the download")
struct EarlyRefusalTests {
    @Test("an 8 MB HTML page served as image/png is refused after its first bytes, and the transfer is cut off")
    func htmlStopsEarly() async throws {
        let page = Data(("<!doctype html><html><body>" + String(repeating: "<p>Service unavailable</p>", count: 320_000)).utf8)
        let fixture = try await PipelineFixture { _ in
            OriginResponse(
                headers: headers(("Content-Type", "image/png"), ("Cache-Control", "max-age=3600")), body: page,
                bodyPacing: BodyPacing(chunkBytes: 16 * 1024, interval: .milliseconds(50), holdAfterBytes: 256 * 1024))
        }
        await #expect {
            try await fixture.pipeline.image(for: fixture.request("/page.png"))
        } throws: { error in
            guard case ImageLoadError.invalidImage = error else { return false }
            return true
        }
        try await eventually { !fixture.origin.deliveries.isEmpty }
        let delivery = try #require(fixture.origin.deliveries.first)
        #expect(!delivery.completed, "the origin wrote all \(delivery.bodyBytesWritten) bytes")
        // The origin writes 256 KB, then waits for the client to hang up before writing on (up to a
        // minute): the refusal comes after the first bytes, so that is all it wrote, however long
        // a loaded run took to refuse (one took 8.7 s, by when a paced origin had written a third).
        #expect(delivery.bodyBytesWritten < page.count / 4, "wrote \(delivery.bodyBytesWritten) of \(page.count) bytes")
        await fixture.pipeline.waitForPendingWrites()
        #expect(try fixture.store.statistics().entries == 0)
    }
}
