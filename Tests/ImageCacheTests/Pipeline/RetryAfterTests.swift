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
@Suite("Retry-After, waited for", .timeLimit(.minutes(10)))
struct RetryAfterTests {
    static let image = TestImages.png(seed: 5)

    /// Loads an image from an origin that answers 503 with `retryAfter` the first time and the
    /// image after; returns how long after the first request the retry arrived.
    static func retryDelay(
        retryAfter: @escaping @Sendable () -> String, maxDelay: Duration = .seconds(5), rate: MinimumTransferRate? = .default
    ) async throws -> Duration {
        let arrivals = Mutex<[ContinuousClock.Instant]>([])
        let retry = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(5), maxDelay: maxDelay)
        let fixture = try await PipelineFixture(retry: retry, minimumTransferRate: rate) { _ in
            let attempt = arrivals.withLock { times -> Int in
                times.append(.now)
                return times.count
            }
            if attempt == 1 { return OriginResponse(status: 503, headers: headers(("Retry-After", retryAfter()))) }
            return OriginResponse(headers: headers(("Cache-Control", "max-age=3600")), body: RetryAfterTests.image)
        }
        let response = try await fixture.pipeline.image(for: fixture.request("/retry.png"))
        #expect(response.data == Self.image)
        let times = arrivals.withLock { $0 }
        try #require(times.count == 2)
        return times[1] - times[0]
    }

    @Test("Retry-After in seconds: the retry waits at least that long")
    func seconds() async throws {
        let delay = try await Self.retryDelay(retryAfter: { "1" })
        #expect(delay >= .milliseconds(950), "retried after \(delay)")
    }

    @Test("Retry-After as an HTTP date: the retry waits until then")
    func httpDate() async throws {
        // Two seconds ahead; HTTP dates have whole seconds, so the wait is more than one.
        let delay = try await Self.retryDelay(retryAfter: { OriginResponse.httpDate(Date().addingTimeInterval(2)) })
        #expect(delay >= .milliseconds(950), "retried after \(delay)")
    }

    @Test("a Retry-After of an hour is capped at maxDelay")
    func capped() async throws {
        let delay = try await Self.retryDelay(retryAfter: { "3600" }, maxDelay: .milliseconds(300))
        #expect(delay >= .milliseconds(280), "retried after \(delay)")
    }

    @Test("a wait for Retry-After longer than the minimum rate's window is not taken for a slow body")
    func waitIsNotSlowness() async throws {
        // The rate is judged over the body of the response the load reads, from its head on; the
        // abandoned 503's head must not start a window that the wait then runs out.
        let rate = MinimumTransferRate(bytesPerSecond: 1024, window: .milliseconds(300))
        let delay = try await Self.retryDelay(retryAfter: { "1" }, rate: rate)
        #expect(delay >= .milliseconds(950), "retried after \(delay)")
    }
}
