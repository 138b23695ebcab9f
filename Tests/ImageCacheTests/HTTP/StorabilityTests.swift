import Foundation
import Testing

@testable import HTTPCaching
@testable import ImageCache

@Suite("Storability (RFC 9111 §3)")
struct StorabilityTests {
    let evaluator = CachePolicyEvaluator()

    func storability(
        _ headers: [(String, String)], status: Int = 200, request: HTTPRequestHead = HTTPFixture.request()
    ) -> CachePolicyEvaluator.Storability {
        evaluator.storability(of: HTTPResponseHead(status: status, headers: HTTPFixture.headers(headers)), for: request)
    }

    @Test("explicit freshness, public or private makes any final status storable")
    func explicitPermission() {
        for status in [200, 201, 299, 400, 403, 500, 503, 599] {
            #expect(storability([("Cache-Control", "max-age=60")], status: status) == .storable, "\(status)")
            #expect(storability([("Expires", "0")], status: status) == .storable, "\(status)")
            #expect(storability([("Cache-Control", "public")], status: status) == .storable, "\(status)")
            #expect(storability([("Cache-Control", "private")], status: status) == .storable, "\(status)")
        }
    }

    /// RFC 9110 §15.1: the statuses "heuristically cacheable by default", as the RFC lists them.
    static let rfcHeuristicallyCacheable: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]

    @Test("heuristically cacheable statuses (RFC 9110 §15.1) are storable without freshness information; no other final status is")
    func heuristicStatuses() {
        let lastModified = [("Last-Modified", HTTPFixture.httpDate(-86_400))]
        // 206 and 304 have refusals of their own (see otherRefusals).
        for status in 200...599 where status != 206 && status != 304 {
            if Self.rfcHeuristicallyCacheable.contains(status) {
                #expect(storability([], status: status) == .storable, "\(status)")
                #expect(storability(lastModified, status: status) == .storable, "\(status)")
            } else {
                #expect(storability(lastModified, status: status) == .notStorable(.noCachePermission(status: status)), "\(status)")
                #expect(storability([], status: status) == .notStorable(.noCachePermission(status: status)), "\(status)")
            }
        }
    }

    @Test("no-store in the response or the request prevents storing")
    func noStore() {
        #expect(storability([("Cache-Control", "max-age=10000, no-store")]) == .notStorable(.responseNoStore))
        #expect(storability([("Cache-Control", "NO-STORE")]) == .notStorable(.responseNoStore))
        #expect(
            storability(
                [("Cache-Control", "max-age=60")], request: HTTPFixture.request([("Cache-Control", "no-store")]))
                == .notStorable(.requestNoStore))
    }

    @Test("must-understand stores understood statuses despite no-store, and refuses others")
    func mustUnderstand() {
        #expect(
            storability([("Cache-Control", "max-age=3600, no-store, must-understand")], status: 599)
                == .notStorable(.statusNotUnderstood(599)))
        #expect(storability([("Cache-Control", "max-age=3600, no-store, must-understand")], status: 200) == .storable)
    }

    @Test("methods other than GET, interim statuses, 206 and 304 are not stored")
    func otherRefusals() {
        let response = [("Cache-Control", "max-age=60")]
        #expect(
            storability(response, request: HTTPFixture.request(method: "POST"))
                == .notStorable(.methodNotCacheable("POST")))
        #expect(
            storability(response, request: HTTPFixture.request(method: "HEAD"))
                == .notStorable(.methodNotCacheable("HEAD")))
        #expect(storability(response, status: 103) == .notStorable(.statusNotFinal(103)))
        #expect(storability(response, status: 600) == .notStorable(.statusNotFinal(600)))
        #expect(storability(response, status: 206) == .notStorable(.partialContent))
        #expect(storability(response, status: 304) == .notStorable(.notModified))
    }

    @Test("Vary: * in any form is not stored")
    func varyStar() {
        #expect(storability([("Cache-Control", "max-age=60"), ("Vary", "Foo, *")]) == .notStorable(.varyAll))
        #expect(storability([("Cache-Control", "max-age=60"), ("Vary", ""), ("Vary", "*")]) == .notStorable(.varyAll))
        #expect(storability([("Cache-Control", "max-age=60"), ("Vary", "Accept")]) == .storable)
    }

    @Test("no-cache responses are storable: they are revalidated on use")
    func noCacheIsStorable() {
        #expect(storability([("Cache-Control", "no-cache")]) == .storable)
        #expect(evaluator.isStorable(HTTPResponseHead(status: 200), for: HTTPRequestHead()))
    }

    @Test("every reason reads as a sentence")
    func reasonsHaveSentences() {
        let reasons: [CachePolicyEvaluator.NotStorableReason] = [
            .methodNotCacheable("POST"), .statusNotFinal(101), .partialContent, .notModified,
            .statusNotUnderstood(599), .responseNoStore, .requestNoStore, .varyAll, .noCachePermission(status: 500),
        ]
        for reason in reasons { #expect(reason.description.hasSuffix(".")) }
    }

    @Test("unsafe methods invalidate on success, not on error (RFC 9111 §4.4)")
    func invalidation() {
        for method in ["POST", "PUT", "DELETE", "PATCH", "M-SEARCH"] {
            #expect(evaluator.invalidatesStoredResponses(request: HTTPFixture.request(method: method), status: 200))
            #expect(evaluator.invalidatesStoredResponses(request: HTTPFixture.request(method: method), status: 303))
            #expect(!evaluator.invalidatesStoredResponses(request: HTTPFixture.request(method: method), status: 500))
            #expect(!evaluator.invalidatesStoredResponses(request: HTTPFixture.request(method: method), status: 404))
        }
        for method in ["GET", "HEAD", "OPTIONS", "TRACE"] {
            #expect(!evaluator.invalidatesStoredResponses(request: HTTPFixture.request(method: method), status: 200))
        }
    }
}
