import Foundation
import Testing

@testable import HTTPCaching
@testable import ImageCache

@Suite("The reuse decision (RFC 9111 §4)")
struct DecisionTests {
    typealias Decision = CachePolicyEvaluator.Decision
    let evaluator = CachePolicyEvaluator()
    static let etag = ("ETag", "\"v1\"")

    func decide(
        _ headers: [(String, String)], at seconds: TimeInterval, request: [(String, String)] = [],
        method: String = "GET", evaluator: CachePolicyEvaluator? = nil
    ) -> Decision {
        let stored = HTTPFixture.stored(HTTPFixture.headers(headers))
        return (evaluator ?? self.evaluator).decision(
            for: HTTPFixture.request(request, method: method), stored: stored, now: HTTPFixture.time(seconds))
    }

    static func revalidate(_ pairs: [(String, String)]) -> Decision {
        .revalidate(conditionalHeaders: HTTPFixture.headers(pairs))
    }

    @Test("a fresh response is used; a stale one is validated, or fetched without validators")
    func freshAndStale() {
        #expect(decide([("Cache-Control", "max-age=60")], at: 59) == .useStored)
        #expect(
            decide([("Cache-Control", "max-age=60"), Self.etag], at: 61)
                == Self.revalidate([("If-None-Match", "\"v1\"")]))
        #expect(decide([("Cache-Control", "max-age=60")], at: 61) == .fetch(.noValidator))
    }

    @Test("nothing stored means fetch, or unavailable with only-if-cached")
    func nothingStored() {
        #expect(
            evaluator.decision(for: HTTPRequestHead(), stored: nil, now: HTTPFixture.start) == .fetch(.noStoredResponse)
        )
        let onlyIfCached = HTTPFixture.request([("Cache-Control", "only-if-cached")])
        #expect(evaluator.decision(for: onlyIfCached, stored: nil, now: HTTPFixture.start) == .unavailable)
    }

    @Test("only GET and HEAD are answered from the cache")
    func methods() {
        #expect(decide([("Cache-Control", "max-age=60")], at: 1, method: "HEAD") == .useStored)
        #expect(decide([("Cache-Control", "max-age=60")], at: 1, method: "POST") == .fetch(.methodNotCacheable))
    }

    @Test("response no-cache always validates; no-cache and no-store together never reach here")
    func responseNoCache() {
        #expect(
            decide([("Cache-Control", "max-age=10000, no-cache"), Self.etag], at: 1)
                == Self.revalidate([("If-None-Match", "\"v1\"")]))
        #expect(decide([("Cache-Control", "max-age=10000, No-CaChE")], at: 1) == .fetch(.noValidator))
        // Qualified no-cache only concerns the named fields, which were not stored.
        #expect(decide([("Cache-Control", "no-cache=\"a\", max-age=3600"), ("a", "1")], at: 3) == .useStored)
    }

    @Test("Pragma: no-cache in a response is ignored")
    func responsePragma() {
        #expect(decide([("Cache-Control", "max-age=3600"), ("Pragma", "no-cache")], at: 3) == .useStored)
    }

    @Test("request no-cache and Pragma: no-cache validate a fresh response")
    func requestNoCache() {
        let stored = [("Cache-Control", "max-age=3600"), Self.etag, ("Last-Modified", HTTPFixture.httpDate(-10_000))]
        let conditional = Self.revalidate([
            ("If-None-Match", "\"v1\""), ("If-Modified-Since", HTTPFixture.httpDate(-10_000)),
        ])
        #expect(decide(stored, at: 1, request: [("Cache-Control", "no-cache")]) == conditional)
        #expect(decide(stored, at: 1, request: [("Pragma", "no-cache")]) == conditional)
        #expect(decide(stored, at: 1, request: [("Pragma", "no-cache"), ("Cache-Control", "max-stale")]) == .useStored)
    }

    @Test("request no-store does not prevent reuse (it only forbids storing, §5.2.1.5)")
    func requestNoStore() {
        #expect(
            decide([("Cache-Control", "max-age=3600")], at: 1, request: [("Cache-Control", "no-store")]) == .useStored)
    }

    @Test("request max-age rejects an older response; immutable exempts a fresh one")
    func requestMaxAge() {
        let aged = [("Cache-Control", "max-age=100000"), ("Age", "1800")]
        #expect(decide(aged, at: 0, request: [("Cache-Control", "max-age=600")]) == .fetch(.noValidator))
        #expect(decide(aged, at: 0, request: [("Cache-Control", "max-age=3600")]) == .useStored)
        #expect(
            decide([("Cache-Control", "max-age=3600, immutable")], at: 10, request: [("Cache-Control", "max-age=0")])
                == .useStored)
        #expect(
            decide([("Cache-Control", "max-age=3600")], at: 10, request: [("Cache-Control", "max-age=0")])
                == .fetch(.noValidator))
        // A forced reload (no-cache) still validates an immutable response.
        #expect(
            decide(
                [("Cache-Control", "max-age=3600, immutable"), Self.etag], at: 10,
                request: [("Cache-Control", "no-cache")])
                == Self.revalidate([("If-None-Match", "\"v1\"")]))
    }

    @Test("request min-fresh needs that much freshness left")
    func minFresh() {
        #expect(
            decide([("Cache-Control", "max-age=1500")], at: 0, request: [("Cache-Control", "min-fresh=2000")])
                == .fetch(.noValidator))
        #expect(
            decide(
                [("Cache-Control", "max-age=1500"), ("Age", "1000")], at: 0,
                request: [("Cache-Control", "min-fresh=1000")])
                == .fetch(.noValidator))
        #expect(
            decide([("Cache-Control", "max-age=1500")], at: 0, request: [("Cache-Control", "min-fresh=1000")])
                == .useStored)
    }

    @Test("request max-stale allows stale responses, with or without a limit, but not past must-revalidate")
    func maxStale() {
        let stale = [("Cache-Control", "max-age=2")]
        #expect(decide(stale, at: 3, request: [("Cache-Control", "max-stale=1000")]) == .useStored)
        #expect(decide(stale, at: 3, request: [("Cache-Control", "max-stale")]) == .useStored)
        #expect(decide(stale, at: 2000, request: [("Cache-Control", "max-stale=1000")]) == .fetch(.noValidator))
        #expect(
            decide(
                [("Cache-Control", "max-age=1500"), ("Age", "2000")], at: 0,
                request: [("Cache-Control", "max-stale=1000")]) == .useStored)
        #expect(
            decide([("Cache-Control", "max-age=2, must-revalidate")], at: 3, request: [("Cache-Control", "max-stale")])
                == .fetch(.noValidator))
        #expect(decide(stale, at: 30, request: [("Cache-Control", "max-stale, max-age=10")]) == .fetch(.noValidator))
    }

    @Test("stale-while-revalidate serves stale within its window and asks for a background revalidation")
    func staleWhileRevalidate() {
        let headers = [("Cache-Control", "max-age=1, stale-while-revalidate=3600"), ("ETag", "\"abc\"")]
        #expect(
            decide(headers, at: 3)
                == .useStoredAndRevalidateInBackground(conditionalHeaders: ["If-None-Match": "\"abc\""]))
        #expect(decide(headers, at: 3602) == Self.revalidate([("If-None-Match", "\"abc\"")]))
        #expect(
            decide(headers, at: 3, request: [("Cache-Control", "max-age=0")])
                == Self.revalidate([("If-None-Match", "\"abc\"")]))
        #expect(decide(headers, at: 3, request: [("Cache-Control", "only-if-cached")]) == .useStored)
        #expect(
            decide([("Cache-Control", "max-age=1, stale-while-revalidate=60, must-revalidate")], at: 3)
                == .fetch(.noValidator))
    }

    @Test("only-if-cached turns validation and fetching into unavailable")
    func onlyIfCached() {
        let request = [("Cache-Control", "only-if-cached")]
        #expect(decide([("Cache-Control", "max-age=60")], at: 1, request: request) == .useStored)
        #expect(decide([("Cache-Control", "max-age=60"), Self.etag], at: 61, request: request) == .unavailable)
        #expect(
            decide([("Cache-Control", "max-age=60")], at: 61, request: request + [("Cache-Control", "max-stale")])
                == .useStored)
    }

    @Test("a Vary mismatch fetches")
    func varyMismatch() {
        let stored = HTTPFixture.stored(
            HTTPFixture.headers([("Cache-Control", "max-age=60"), ("Vary", "Foo")]),
            request: HTTPFixture.request([("Foo", "1")]))
        #expect(
            evaluator.decision(for: HTTPFixture.request([("Foo", "2")]), stored: stored, now: HTTPFixture.start)
                == .fetch(.varyMismatch))
        #expect(
            evaluator.decision(for: HTTPFixture.request([("Foo", "1")]), stored: stored, now: HTTPFixture.start)
                == .useStored)
    }

    @Test("overrides make no-cache and max-age=0 responses reusable while request directives still apply")
    func overrides() {
        let fixed = CachePolicyEvaluator(override: .fixedTimeToLive(.seconds(3600)))
        #expect(decide([("Cache-Control", "no-cache"), Self.etag], at: 60, evaluator: fixed) == .useStored)
        #expect(decide([("Cache-Control", "max-age=0")], at: 60, evaluator: fixed) == .useStored)
        #expect(decide([("Cache-Control", "max-age=0")], at: 3601, evaluator: fixed) == .fetch(.noValidator))
        #expect(
            decide(
                [("Cache-Control", "max-age=0"), Self.etag], at: 60, request: [("Cache-Control", "no-cache")],
                evaluator: fixed)
                == Self.revalidate([("If-None-Match", "\"v1\"")]))
        let never = CachePolicyEvaluator(override: .neverExpire)
        #expect(decide([("Expires", "0")], at: 1e9, evaluator: never) == .useStored)
    }
}
