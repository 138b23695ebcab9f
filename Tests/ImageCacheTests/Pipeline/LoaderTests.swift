import CacheStorage
import Foundation
import ImageCache
import LoopbackOrigin
import TestSupport
import Testing

@Suite("Loader")
struct LoaderTests {
    static let image = TestImages.png(seed: 2)

    @Test("100 concurrent identical requests cost one origin request")
    func coalescing() async throws {
        let fixture = try await PipelineFixture { _ in
            OriginResponse(headers: headers(("Cache-Control", "max-age=3600")), body: LoaderTests.image, delay: .milliseconds(300))
        }
        let request = fixture.request("/c.jpg")
        let responses = try await withThrowingTaskGroup(of: ImageResponse.self) { group in
            for _ in 0..<100 { group.addTask { try await fixture.pipeline.image(for: request) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(responses.count == 100)
        #expect(responses.allSatisfy { $0.data == Self.image })
        #expect(fixture.originHits("/c.jpg") == 1)
    }

    @Test("cancelling every waiter stops the load; one waiter cancelling leaves the others served")
    func cancellation() async throws {
        // The second load is slow enough for both of its callers to join it on a loaded machine.
        let fixture = try await PipelineFixture { request in
            OriginResponse(
                headers: headers(("Cache-Control", "max-age=3600")), body: LoaderTests.image,
                delay: request.path == "/slow2.jpg" ? .seconds(3) : .milliseconds(400))
        }
        let request = fixture.request("/slow.jpg")
        let lone = Task { try await fixture.pipeline.image(for: request) }
        try await Task.sleep(for: .milliseconds(50))
        lone.cancel()
        await #expect(throws: ImageLoadError.cancelled) { try await lone.value }
        // The waiter is released at once; the abandoned load leaves once its fetch has unwound,
        // which waits for the cooperative pool: beside the long suites on a loaded machine that
        // took over two minutes once (the load stored its response just after). A ten-minute
        // bound only catches a load that never leaves.
        for _ in 0..<60_000 where fixture.pipeline.loadsInFlight > 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(fixture.pipeline.loadsInFlight == 0)

        let other = fixture.request("/slow2.jpg")
        let leaving = Task { try await fixture.pipeline.image(for: other) }
        let staying = Task { try await fixture.pipeline.image(for: other) }
        // Both must have joined the load before one leaves: cancelled alone, the first would end
        // the load, and the second would start another.
        for _ in 0..<12_000 where fixture.pipeline.callersWaiting < 2 { try await Task.sleep(for: .milliseconds(10)) }
        try #require(fixture.pipeline.callersWaiting == 2)
        leaving.cancel()
        await #expect(throws: ImageLoadError.cancelled) { try await leaving.value }
        #expect(try await staying.value.data == Self.image)
        #expect(fixture.originHits("/slow2.jpg") == 1)
    }

    @Test("transient failures (a 503, then a dropped connection) are retried until the image arrives")
    func retries() async throws {
        let attempts = Mutex(0)
        let fixture = try await PipelineFixture { _ in
            let attempt = attempts.withLock { count -> Int in
                count += 1
                return count
            }
            if attempt == 1 { return OriginResponse(status: 503, headers: headers(("Retry-After", "0"))) }
            if attempt == 2 { return .dropConnection }
            return OriginResponse(headers: headers(("Cache-Control", "max-age=3600")), body: LoaderTests.image)
        }
        let response = try await fixture.pipeline.image(for: fixture.request("/flaky.jpg"))
        #expect(response.data == Self.image)
        #expect(fixture.originHits("/flaky.jpg") >= 3)
    }

    @Test("retries are bounded: a failing origin ends in a typed error")
    func retriesBounded() async throws {
        let fixture = try await PipelineFixture { _ in OriginResponse(status: 500) }
        await #expect(throws: ImageLoadError.httpStatus(500)) {
            try await fixture.pipeline.image(for: fixture.request("/down.jpg"))
        }
        #expect(fixture.originHits("/down.jpg") == 3)
    }

    @Test("an HTML error page sent with status 200 is refused and never cached")
    func htmlIsNotAnImage() async throws {
        let html = Data("<!doctype html><html><body>Service unavailable</body></html>".utf8)
        let fixture = try await PipelineFixture { _ in
            OriginResponse(headers: headers(("Content-Type", "image/jpeg"), ("Cache-Control", "max-age=3600")), body: html)
        }
        for _ in 0..<2 {
            await #expect {
                try await fixture.pipeline.image(for: fixture.request("/error.jpg"))
            } throws: { error in
                guard case ImageLoadError.invalidImage = error else { return false }
                return true
            }
        }
        #expect(fixture.originHits("/error.jpg") == 2)
        await fixture.pipeline.waitForPendingWrites()
        #expect(try fixture.store.statistics().entries == 0)
    }

    @Test("a decompression bomb is refused by its header, a 404 and an oversized body by typed errors")
    func refusals() async throws {
        let bomb = Data(SyntheticImages.png(width: 100_000, height: 100_000, idat: false, iend: false)) + Data(count: 2_000_000)
        let fixture = try await PipelineFixture { request in
            switch request.path {
            case "/bomb.png": OriginResponse(headers: headers(), body: bomb)
            case "/big.jpg": OriginResponse(headers: headers(), body: LoaderTests.image + Data(count: 60 * 1024 * 1024))
            default: OriginResponse(status: 404, headers: headers(("Content-Type", "text/html")), body: Data("nope".utf8))
            }
        }
        await #expect {
            try await fixture.pipeline.image(for: fixture.request("/bomb.png"))
        } throws: { error in
            guard case let ImageLoadError.invalidImage(reason) = error else { return false }
            return reason.stage == .policy || reason.stage == .header
        }
        await #expect(throws: ImageLoadError.httpStatus(404)) {
            try await fixture.pipeline.image(for: fixture.request("/missing.jpg"))
        }
        await #expect(throws: ImageLoadError.bodyTooLarge(limit: 50 * 1024 * 1024)) {
            try await fixture.pipeline.image(for: fixture.request("/big.jpg"))
        }
        await fixture.pipeline.waitForPendingWrites()
        #expect(try fixture.store.statistics().entries == 0)
    }

    @Test("a 401 with a challenge ends in a typed error; a redirect is followed to the image")
    func challengeAndRedirect() async throws {
        // Both make URLSession call back into its task from a delegate callback (to answer the
        // challenge, to follow the redirect): the transport's delegate handling must not block them.
        let fixture = try await PipelineFixture { request in
            switch request.path {
            case "/moved.jpg": OriginResponse(status: 301, headers: headers(("Location", "/image.jpg")))
            case "/image.jpg": OriginResponse(headers: headers(("Cache-Control", "max-age=600")), body: LoaderTests.image)
            default:
                OriginResponse(
                    status: 401, headers: headers(("WWW-Authenticate", "Basic realm=\"images\""), ("Content-Type", "text/html")),
                    body: Data("sign in".utf8))
            }
        }
        await #expect(throws: ImageLoadError.httpStatus(401)) {
            try await fixture.pipeline.image(for: fixture.request("/private.jpg", policy: .withViewCycle))
        }
        let moved = try await fixture.pipeline.image(for: fixture.request("/moved.jpg", policy: .withViewCycle))
        #expect(moved.data == LoaderTests.image)
        #expect(fixture.originHits("/image.jpg") == 1)
    }

    @Test("prefetch warms the caches at low priority; the later load is a memory hit")
    func prefetch() async throws {
        let fixture = try await PipelineFixture { _ in
            OriginResponse(headers: headers(("Cache-Control", "max-age=600")), body: LoaderTests.image)
        }
        let requests = (0..<5).map { fixture.request("/pre/\($0).jpg") }
        fixture.pipeline.prefetch(requests)
        await fixture.pipeline.waitForBackgroundWork()
        #expect(fixture.origin.requests.count == 5)
        for request in requests { #expect(try await fixture.pipeline.image(for: request).source == .memory) }
        #expect(fixture.origin.requests.count == 5)
        await fixture.pipeline.waitForPendingWrites()
        #expect(try fixture.store.statistics().entries == 5)
    }

    @Test("progress reports the body as it arrives")
    func progress() async throws {
        let fixture = try await PipelineFixture { _ in
            OriginResponse(headers: headers(("Cache-Control", "max-age=3600")), body: LoaderTests.image)
        }
        let seen = Mutex<[Int]>([])
        _ = try await fixture.pipeline.image(for: fixture.request("/progress.jpg")) { received, _ in
            seen.withLock { $0.append(received) }
        }
        #expect(seen.withLock { $0.last } == Self.image.count)
    }
}

/// A tiny lock for test state shared with origin handlers.
final class Mutex<State>: @unchecked Sendable {
    // @unchecked: `state` is only touched under `lock`.
    private let lock = NSLock()
    private var state: State
    init(_ state: State) { self.state = state }
    func withLock<Result>(_ body: (inout State) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&state)
    }
}
