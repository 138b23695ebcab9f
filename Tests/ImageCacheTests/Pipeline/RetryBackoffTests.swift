import CacheStorage
import Foundation
import LoopbackOrigin
import TestSupport
import Testing

@testable import HTTPCaching
@testable import ImageCache

/// Retries without `Retry-After`: each wait is drawn at random from the upper half of a ceiling
/// that doubles per attempt (full jitter) and never passes `RetryPolicy.maxDelay`. Through the
/// pipeline only lower bounds are asserted on time (a loaded machine is late, never early); the
/// draw itself is checked on the policy.
@Suite("Retry backoff", .timeLimit(.minutes(10)))
struct RetryBackoffTests {
    static let image = TestImages.png(seed: 6)

    /// When each request of `/backoff.png` arrived, from an origin that answers 503 (no
    /// `Retry-After`) `failures` times and the image after.
    static func arrivals(failures: Int, policy: RetryPolicy) async throws -> [ContinuousClock.Instant] {
        let arrivals = Mutex<[ContinuousClock.Instant]>([])
        let fixture = try await PipelineFixture(retry: policy) { _ in
            let attempt = arrivals.withLock { times -> Int in
                times.append(.now)
                return times.count
            }
            if attempt <= failures { return OriginResponse(status: 503, headers: headers()) }
            return OriginResponse(headers: headers(("Cache-Control", "max-age=3600")), body: RetryBackoffTests.image)
        }
        let response = try await fixture.pipeline.image(for: fixture.request("/backoff.png"))
        #expect(response.data == Self.image)
        return arrivals.withLock { $0 }
    }

    @Test("the waits between retries grow: each at least half of a ceiling that doubles per attempt")
    func growth() async throws {
        let times = try await Self.arrivals(failures: 3, policy: RetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(80)))
        try #require(times.count == 4)
        let waits = zip(times.dropFirst(), times).map { $0 - $1 }
        // Ceilings 80, 160, 320 ms: the third wait's floor is above the first wait's ceiling.
        #expect(waits[0] >= .milliseconds(40), "\(waits)")
        #expect(waits[1] >= .milliseconds(80), "\(waits)")
        #expect(waits[2] >= .milliseconds(160), "\(waits)")
    }

    @Test("maxDelay caps the backoff: a base delay of a minute waits no more than the cap")
    func capThroughPipeline() async throws {
        let times = try await Self.arrivals(
            failures: 2, policy: RetryPolicy(maxAttempts: 3, baseDelay: .seconds(3600), maxDelay: .milliseconds(100)))
        try #require(times.count == 3)
        let waits = [times[1] - times[0], times[2] - times[1]]
        #expect(waits.allSatisfy { $0 >= .milliseconds(50) }, "\(waits)")
        // Uncapped, each wait would be at least half an hour, and the suite's time limit ends the
        // test first; a loaded machine (another suite holds the whole cooperative pool for a
        // while) can stretch a capped wait to many seconds, never to that.
        #expect(waits.allSatisfy { $0 < .seconds(600) }, "\(waits)")
    }

    @Test("each wait is drawn over the upper half of its ceiling (jitter), the ceiling doubling up to maxDelay")
    func jitterAndCeiling() {
        let policy = RetryPolicy(maxAttempts: 10, baseDelay: .milliseconds(100), maxDelay: .seconds(1))
        let ceilings: [Int64] = [100, 200, 400, 800, 1000, 1000, 1000]
        for (index, ceiling) in ceilings.enumerated() {
            let draws = (0..<400).map { _ in policy.delay(afterAttempt: index + 1, retryAfter: nil).wholeMilliseconds }
            let attempt = index + 1
            #expect(draws.allSatisfy { $0 >= ceiling / 2 && $0 <= ceiling }, "attempt \(attempt): \(draws.min()!)…\(draws.max()!)")
            // Spread over the range, not one fixed wait: both quarters of the half are reached.
            #expect(draws.min()! < ceiling * 5 / 8 && draws.max()! > ceiling * 7 / 8, "attempt \(attempt)")
            #expect(Set(draws).count > 20, "attempt \(attempt)")
        }
        #expect(policy.delay(afterAttempt: 64, retryAfter: nil) <= .seconds(1))
    }

    @Test("a Retry-After is taken as given, without jitter, up to maxDelay")
    func retryAfterBypassesJitter() {
        let policy = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(100), maxDelay: .seconds(5))
        #expect(policy.delay(afterAttempt: 1, retryAfter: .zero) == .zero)
        #expect(policy.delay(afterAttempt: 2, retryAfter: .seconds(2)) == .seconds(2))
        #expect(policy.delay(afterAttempt: 1, retryAfter: .seconds(3600)) == .seconds(5))
    }
}
