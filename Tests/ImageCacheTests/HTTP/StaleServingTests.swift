import Foundation
import Testing

@testable import HTTPCaching
@testable import ImageCache

@Suite("Serving stale responses (RFC 9111 §4.2.4, RFC 5861)")
struct StaleServingTests {
    let evaluator = CachePolicyEvaluator()

    func canServe(
        _ cacheControl: String, at seconds: TimeInterval, request: [(String, String)] = [],
        context: CachePolicyEvaluator.StaleContext
    ) -> Bool {
        let stored = HTTPFixture.stored(["Cache-Control": cacheControl])
        return evaluator.canServeStale(
            stored, now: HTTPFixture.time(seconds), request: HTTPFixture.request(request), context: context)
    }

    @Test("a fresh response is always servable")
    func fresh() {
        #expect(canServe("max-age=60, must-revalidate", at: 1, context: .normal))
    }

    @Test("a disconnected cache may serve stale, unless must-revalidate or no-cache forbid it")
    func unreachable() {
        #expect(canServe("max-age=2", at: 3, context: .originUnreachable))
        #expect(!canServe("max-age=2, must-revalidate", at: 3, context: .originUnreachable))
        #expect(!canServe("max-age=2, no-cache", at: 3, context: .originUnreachable))
        #expect(!canServe("max-age=2", at: 3, request: [("Cache-Control", "no-cache")], context: .originUnreachable))
        #expect(!canServe("max-age=2, stale-if-error=10", at: 30, context: .originUnreachable))
    }

    @Test("an origin error allows stale only within stale-if-error, from the response or the request")
    func originError() {
        #expect(!canServe("max-age=2", at: 3, context: .originError(status: 503)))
        #expect(canServe("max-age=2, stale-if-error=60", at: 3, context: .originError(status: 503)))
        #expect(!canServe("max-age=2, stale-if-error=60", at: 63, context: .originError(status: 503)))
        #expect(!canServe("max-age=2, stale-if-error=60", at: 3, context: .originError(status: 404)))
        #expect(
            canServe(
                "max-age=2", at: 3, request: [("Cache-Control", "stale-if-error=60")],
                context: .originError(status: 500)))
        #expect(!canServe("max-age=2, stale-if-error=60, must-revalidate", at: 3, context: .originError(status: 502)))
    }

    @Test("normal requests: stale-while-revalidate or max-stale")
    func normal() {
        #expect(!canServe("max-age=2", at: 3, context: .normal))
        #expect(canServe("max-age=2, stale-while-revalidate=60", at: 3, context: .normal))
        #expect(!canServe("max-age=2, stale-while-revalidate=60", at: 63, context: .normal))
        #expect(canServe("max-age=2", at: 3, request: [("Cache-Control", "max-stale=5")], context: .normal))
        #expect(!canServe("max-age=2", at: 30, request: [("Cache-Control", "max-stale=5")], context: .normal))
    }

    @Test("an override lifts no-cache's ban, as it lifts its revalidation")
    func override() {
        let stored = HTTPFixture.stored(["Cache-Control": "no-cache"])
        let fixed = CachePolicyEvaluator(override: .fixedTimeToLive(.seconds(10)))
        #expect(
            fixed.canServeStale(
                stored, now: HTTPFixture.time(60), request: HTTPRequestHead(), context: .originUnreachable))
        #expect(
            !evaluator.canServeStale(
                stored, now: HTTPFixture.time(60), request: HTTPRequestHead(), context: .originUnreachable))
    }
}
