import CacheStorage
import Foundation
import ImageCache
import LoopbackOrigin
import TestSupport
import Testing

/// `Retry-After` with real waits: the retry comes no sooner than the origin asked, whether it said
/// so in seconds or as an HTTP date, and never later than `RetryPolicy.maxDelay` allows. Only lower
/// bounds are asserted on time (a loaded machine is late, never early); the cap is proven by the
/// load finishing at all within the time limit, where an uncapped wait would take an hour.
@Suite("Retry-After, waited for", .timeLimit(.minutes(1)))
struct RetryAfterTests {
    static let image = TestImages.png(seed: 5)

    /// An origin that answers 503 with `retryAfter` the first time and the image after, recording
    /// when each request arrived.
    static func flakyOrigin(retryAfter: @escaping @Sendable () -> String, maxDelay: Duration = .seconds(5)) async throws
        -> (PipelineFixture, Mutex<[ContinuousClock.Instant]>)
    {
        let arrivals = Mutex<[ContinuousClock.Instant]>([])
        let fixture = try await PipelineFixture(retry: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(5), maxDelay: maxDelay)) { _ in
            let attempt = arrivals.withLock { times -> Int in
                times.append(.now)
                return times.count
            }
            if attempt == 1 { return OriginResponse(status: 503, headers: headers(("Retry-After", retryAfter()))) }
            return OriginResponse(headers: headers(("Cache-Control", "max-age=60")), body: RetryAfterTests.image)
        }
        return (fixture, arrivals)
    }

    @Test("Retry-After in seconds: the retry waits at least that long")
    func seconds() async throws {
        let (fixture, arrivals) = try await Self.flakyOrigin(retryAfter: { "1" })
        let response = try await fixture.pipeline.image(for: fixture.request("/retry-seconds.png"))
        #expect(response.data == Self.image)
        let times = arrivals.withLock { $0 }
        try #require(times.count == 2)
        #expect(times[1] - times[0] >= .milliseconds(950), "retried after \(times[1] - times[0])")
    }

    @Test("Retry-After as an HTTP date: the retry waits until then")
    func httpDate() async throws {
        // Two seconds ahead; HTTP dates have whole seconds, so the wait is more than one.
        let (fixture, arrivals) = try await Self.flakyOrigin(retryAfter: { OriginResponse.httpDate(Date().addingTimeInterval(2)) })
        let response = try await fixture.pipeline.image(for: fixture.request("/retry-date.png"))
        #expect(response.data == Self.image)
        let times = arrivals.withLock { $0 }
        try #require(times.count == 2)
        #expect(times[1] - times[0] >= .milliseconds(950), "retried after \(times[1] - times[0])")
    }

    @Test("a Retry-After of an hour is capped at maxDelay")
    func capped() async throws {
        let (fixture, arrivals) = try await Self.flakyOrigin(retryAfter: { "3600" }, maxDelay: .milliseconds(300))
        let response = try await fixture.pipeline.image(for: fixture.request("/retry-hour.png"))
        #expect(response.data == Self.image)
        let times = arrivals.withLock { $0 }
        try #require(times.count == 2)
        #expect(times[1] - times[0] >= .milliseconds(280), "retried after \(times[1] - times[0])")
    }
}
