import Foundation
import Testing

@testable import HTTPCaching
@testable import ImageCache

@Suite("Freshness lifetime and age (RFC 9111 §4.2)")
struct FreshnessTests {
    let evaluator = CachePolicyEvaluator()

    func lifetime(_ headers: [(String, String)], status: Int = 200, _ evaluator: CachePolicyEvaluator? = nil)
        -> Duration
    {
        (evaluator ?? self.evaluator).freshnessLifetime(
            of: HTTPFixture.stored(status: status, HTTPFixture.headers(headers)))
    }

    @Test("max-age is the lifetime, and wins over Expires")
    func maxAge() {
        #expect(lifetime([("Cache-Control", "max-age=3600")]) == .seconds(3600))
        #expect(
            lifetime([("Cache-Control", "max-age=3600"), ("Expires", HTTPFixture.httpDate(-7200))]) == .seconds(3600))
        #expect(lifetime([("Expires", HTTPFixture.httpDate(3600)), ("Cache-Control", "max-age=0")]) == .zero)
        #expect(lifetime([("Cache-Control", "max-age=3600"), ("Expires", "0")]) == .seconds(3600))
    }

    @Test("s-maxage is ignored by a private cache")
    func sharedMaxAgeIgnored() {
        #expect(lifetime([("Cache-Control", "s-maxage=3600, max-age=1")]) == .seconds(1))
        #expect(lifetime([("Cache-Control", "s-maxage=3600")]) == .zero)
    }

    @Test("Expires counts from Date; past, equal, invalid and older-than-Date values give zero")
    func expires() {
        let date = ("Date", HTTPFixture.httpDate(0))
        #expect(lifetime([("Expires", HTTPFixture.httpDate(2_592_000)), date]) == .seconds(2_592_000))
        #expect(lifetime([("Expires", HTTPFixture.httpDate(-2_592_000)), date]) == .zero)
        #expect(lifetime([("Expires", HTTPFixture.httpDate(0)), date]) == .zero)
        #expect(lifetime([("Expires", HTTPFixture.httpDate(300)), ("Date", HTTPFixture.httpDate(400))]) == .zero)
        #expect(lifetime([("Expires", "0"), date]) == .zero)
        #expect(lifetime([("Expires", "Thu, 18 Aug 50 02:01:18 GMT"), date]) == .zero)
        // Expires without Date counts from the time the response arrived (which became its Date).
        #expect(lifetime([("Expires", HTTPFixture.httpDate(60))]) == .seconds(60))
    }

    @Test("Expires in the obsolete forms and far in the future")
    func expiresForms() {
        let date = ("Date", HTTPFixture.httpDate(0))
        let expected = HTTPDate.parse("Thu, 18 Aug 2050 02:01:18 GMT")!.timeIntervalSince(HTTPFixture.start)
        #expect(lifetime([("Expires", "Thursday, 18-Aug-50 02:01:18 GMT"), date]) == .seconds(expected))
        #expect(lifetime([("Expires", "Thu Aug 18 02:01:18 2050"), date]) == .seconds(expected))
        #expect(lifetime([("Expires", "Sun, 21 Nov 2286 04:46:39 GMT"), date]) > .seconds(8_000_000_000))
    }

    @Test("the first Expires line is used; a later valid line does not rescue an invalid first one")
    func multipleExpires() {
        let date = ("Date", HTTPFixture.httpDate(0))
        #expect(
            lifetime([("Expires", HTTPFixture.httpDate(60)), ("Expires", HTTPFixture.httpDate(600)), date])
                == .seconds(60))
        #expect(lifetime([("Expires", "garbage"), ("Expires", HTTPFixture.httpDate(600)), date]) == .zero)
    }

    @Test("heuristic freshness is 10 % of Date − Last-Modified for heuristically cacheable statuses")
    func heuristic() {
        let headers = [("Last-Modified", HTTPFixture.httpDate(-86_400)), ("Date", HTTPFixture.httpDate(0))]
        for status in [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501] {
            #expect(lifetime(headers, status: status) == .seconds(8640), "\(status)")
        }
        for status in [201, 202, 302, 403, 500, 502, 503, 599] {
            #expect(lifetime(headers, status: status) == .zero, "\(status)")
        }
        #expect(lifetime(headers + [("Cache-Control", "public")], status: 599) == .seconds(8640))
        #expect(lifetime([("Last-Modified", HTTPFixture.httpDate(60)), ("Date", HTTPFixture.httpDate(0))]) == .zero)
        #expect(lifetime([("Last-Modified", "yesterday")]) == .zero)
        #expect(lifetime([]) == .zero)
    }

    @Test("explicit freshness disables the heuristic, even when it is invalid")
    func explicitBeatsHeuristic() {
        let lastModified = ("Last-Modified", HTTPFixture.httpDate(-86_400))
        #expect(lifetime([lastModified, ("Expires", "0")]) == .zero)
        #expect(lifetime([lastModified, ("Cache-Control", "max-age=abc")]) == .zero)
        #expect(lifetime([lastModified, ("Cache-Control", "no-cache")]) == .seconds(8640))
    }

    @Test("the heuristic fraction and cap are configurable")
    func heuristicSettings() {
        let headers = [("Last-Modified", HTTPFixture.httpDate(-86_400))]
        #expect(lifetime(headers, CachePolicyEvaluator(heuristicFraction: 0.5)) == .seconds(43_200))
        #expect(lifetime(headers, CachePolicyEvaluator(maximumHeuristicLifetime: .seconds(600))) == .seconds(600))
    }

    @Test("current age follows §4.2.3: Age, response delay, apparent age and resident time")
    func currentAge() {
        // Date 10 s before arrival, Age 5, a 2 s round trip: corrected initial age = max(10, 5 + 2) = 10.
        let stored = HTTPFixture.stored(
            HTTPFixture.headers([("Date", HTTPFixture.httpDate(-10)), ("Age", "5")]), delay: 2)
        #expect(evaluator.currentAge(of: stored, now: HTTPFixture.start) == .seconds(10))
        #expect(evaluator.currentAge(of: stored, now: HTTPFixture.time(30)) == .seconds(40))
        // Age 100 outweighs the apparent age: 100 + 2.
        let aged = HTTPFixture.stored(
            HTTPFixture.headers([("Date", HTTPFixture.httpDate(-10)), ("Age", "100")]), delay: 2)
        #expect(evaluator.currentAge(of: aged, now: HTTPFixture.start) == .seconds(102))
        // A Date in the future does not make the age negative; neither does a clock that went back.
        let future = HTTPFixture.stored(HTTPFixture.headers([("Date", HTTPFixture.httpDate(500))]))
        #expect(evaluator.currentAge(of: future, now: HTTPFixture.time(-50)) == .zero)
    }

    @Test(
        "Age parsing: first line, first member, invalid ignored, huge clamped",
        arguments: [
            (["abc"], 0), (["-7200"], 0), (["7200"], 7200), (["0", "7200"], 0), (["7200", "0"], 7200),
            (["0, 0"], 0), (["3600", "3600"], 3600), (["7200;foo=bar"], 7200), (["1.5"], 0), ([""], 0),
            (["2147483648"], 2_147_483_648), (["99999999999999999999"], 2_147_483_648),
        ] as [([String], Int64)])
    func ageParsing(lines: [String], seconds: Int64) {
        var headers: HeaderFields = ["Date": HTTPFixture.httpDate(0)]
        for line in lines { headers.append("Age", line) }
        #expect(evaluator.currentAge(of: HTTPFixture.stored(headers), now: HTTPFixture.start) == .seconds(seconds))
    }

    @Test("fresh while lifetime exceeds age; staleness counts past it")
    func freshness() {
        let stored = HTTPFixture.stored(["Cache-Control": "max-age=2"])
        #expect(evaluator.isFresh(stored, now: HTTPFixture.time(1.9)))
        #expect(!evaluator.isFresh(stored, now: HTTPFixture.time(2)))
        #expect(evaluator.staleness(of: stored, now: HTTPFixture.time(1)) == .zero)
        #expect(evaluator.staleness(of: stored, now: HTTPFixture.time(5)) == .seconds(3))
        let aged = HTTPFixture.stored(HTTPFixture.headers([("Cache-Control", "max-age=3600"), ("Age", "7200")]))
        #expect(!evaluator.isFresh(aged, now: HTTPFixture.start))
        let hugeAge = HTTPFixture.stored(
            HTTPFixture.headers([("Cache-Control", "max-age=3600"), ("Age", "2147483648")]))
        #expect(!evaluator.isFresh(hugeAge, now: HTTPFixture.start))
    }

    @Test("the expiration date is when the current age reaches the lifetime")
    func expirationDate() {
        let stored = HTTPFixture.stored(HTTPFixture.headers([("Cache-Control", "max-age=100"), ("Age", "30")]))
        #expect(evaluator.expirationDate(of: stored) == HTTPFixture.time(70))
        #expect(CachePolicyEvaluator(override: .neverExpire).expirationDate(of: stored) == nil)
    }

    @Test("serving sets Age to the current age in whole seconds and keeps Date")
    func servedHeaders() {
        let stored = HTTPFixture.stored(
            HTTPFixture.headers([("Cache-Control", "max-age=100"), ("Age", "30"), ("Age", "1")]))
        let served = evaluator.servedHead(stored, now: HTTPFixture.time(3.7)).headers
        #expect(served.values(for: "Age") == ["33"])
        #expect(served["Date"] == HTTPFixture.httpDate(0))
    }

    @Test("overrides: minimum lengthens, fixed replaces, never expire is for ever")
    func overrides() {
        let short = [("Cache-Control", "max-age=60")]
        let long = [("Cache-Control", "max-age=7200")]
        let minimum = CachePolicyEvaluator(override: .minimumTimeToLive(.seconds(3600)))
        #expect(lifetime(short, minimum) == .seconds(3600))
        #expect(lifetime(long, minimum) == .seconds(7200))
        let fixed = CachePolicyEvaluator(override: .fixedTimeToLive(.seconds(3600)))
        #expect(lifetime(short, fixed) == .seconds(3600))
        #expect(lifetime(long, fixed) == .seconds(3600))
        #expect(lifetime([("Cache-Control", "no-cache, max-age=0")], fixed) == .seconds(3600))
        let never = CachePolicyEvaluator(override: .neverExpire)
        let forever = HTTPFixture.stored(["Cache-Control": "max-age=0"])
        #expect(never.isFresh(forever, now: HTTPFixture.time(100 * 365 * 86_400)))
        #expect(never.freshnessLifetime(of: forever) > .seconds(Int64(1) << 60))
    }

    @Test("overrides leave error statuses to their headers")
    func overridesSkipErrors() {
        let fixed = CachePolicyEvaluator(override: .fixedTimeToLive(.seconds(3600)))
        #expect(lifetime([("Cache-Control", "max-age=60")], status: 404, fixed) == .seconds(60))
        #expect(lifetime([], status: 503, fixed) == .zero)
        #expect(lifetime([], status: 301, fixed) == .seconds(3600))
    }
}
