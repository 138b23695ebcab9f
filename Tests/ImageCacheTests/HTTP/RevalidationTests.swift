import Foundation
import Testing

@testable import HTTPCaching
@testable import ImageCache

@Suite("Storing, validating and updating responses (RFC 9111 §3.1, §4.3)")
struct RevalidationTests {
    @Test("hop-by-hop, Connection-named and Proxy-* fields are not stored")
    func hopByHopDropped() {
        let stored = HTTPFixture.stored(
            HTTPFixture.headers([
                ("Connection", "X-Private, close"), ("X-Private", "1"), ("Keep-Alive", "timeout=5"),
                ("Proxy-Authenticate", "Basic"), ("Proxy-Connection", "keep-alive"), ("TE", "trailers"),
                ("Trailer", "X"), ("Transfer-Encoding", "chunked"), ("Upgrade", "h2c"), ("X-Test-Header", "kept"),
                ("Content-Length", "10"), ("Set-Cookie2", "a=c"), ("Date", HTTPFixture.httpDate(0)),
            ]))
        // Set-Cookie2 hands out a credential: never stored, so never replayed.
        #expect(stored.headers.map(\.name) == ["X-Test-Header", "Content-Length", "Date"])
    }

    @Test("fields named by a qualified no-cache are not stored")
    func qualifiedNoCacheFieldsDropped() {
        let stored = HTTPFixture.stored(
            HTTPFixture.headers([
                ("Cache-Control", "no-cache=\"a, B\""), ("a", "1"), ("b", "2"), ("c", "3"),
                ("Cache-Control", "max-age=3600"),
            ]))
        #expect(!stored.headers.contains("a"))
        #expect(!stored.headers.contains("b"))
        #expect(stored.headers["c"] == "3")
    }

    @Test("a missing Date is added as the response time; a present one is kept")
    func dateAdded() {
        #expect(HTTPFixture.stored([:]).headers["Date"] == HTTPFixture.httpDate(0))
        #expect(
            HTTPFixture.stored(["Date": HTTPFixture.httpDate(-5)]).headers.values(for: "Date") == [
                HTTPFixture.httpDate(-5)
            ])
    }

    @Test("conditional headers come from ETag (verbatim, weak too) and a valid Last-Modified")
    func conditionalHeaders() {
        let both = HTTPFixture.stored(
            HTTPFixture.headers([("ETag", "W/\"abcdef\""), ("Last-Modified", HTTPFixture.httpDate(-60))]))
        #expect(
            both.conditionalRequestHeaders
                == HTTPFixture.headers([
                    ("If-None-Match", "W/\"abcdef\""), ("If-Modified-Since", HTTPFixture.httpDate(-60)),
                ]))
        #expect(HTTPFixture.stored(["Last-Modified": "not a date"]).conditionalRequestHeaders.isEmpty)
        #expect(HTTPFixture.stored(["ETag": ""]).conditionalRequestHeaders.isEmpty)
        #expect(HTTPFixture.stored([:]).conditionalRequestHeaders.isEmpty)
    }

    static let original = HTTPFixture.stored(
        HTTPFixture.headers([
            ("Date", HTTPFixture.httpDate(0)), ("Content-Length", "36"), ("Cache-Control", "max-age=2"),
            ("ETag", "\"v1\""), ("X-Test-Header", "old"), ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2"), ("Age", "30"),
            ("Content-Type", "text/plain"),
        ]))

    func update(_ pairs: [(String, String)], at seconds: TimeInterval = 10) -> StoredResponse? {
        Self.original.updating(
            with: HTTPResponseHead(status: 304, headers: HTTPFixture.headers(pairs)),
            requestTime: HTTPFixture.time(seconds - 1), responseTime: HTTPFixture.time(seconds))
    }

    @Test("a 304 replaces the fields it carries, keeps the rest, never Content-Length or hop-by-hop")
    func updateReplacesFields() throws {
        let updated = try #require(
            update([
                ("Date", HTTPFixture.httpDate(10)), ("Content-Length", "10"), ("Cache-Control", "max-age=3600"),
                ("ETag", "\"v1\""), ("X-Test-Header", "new"), ("Set-Cookie", "c=3"), ("Connection", "keep-alive"),
                ("Keep-Alive", "timeout=5"), ("Content-Type", "text/plain;charset=utf-8"), ("X-New", "1"),
            ]))
        #expect(updated.headers["Content-Length"] == "36")
        #expect(updated.headers["Cache-Control"] == "max-age=3600")
        #expect(updated.headers["X-Test-Header"] == "new")
        #expect(updated.headers.values(for: "Set-Cookie").isEmpty, "a cookie is not stored, even from a 304")
        #expect(updated.headers["Content-Type"] == "text/plain;charset=utf-8")
        #expect(updated.headers["X-New"] == "1")
        #expect(updated.headers["Date"] == HTTPFixture.httpDate(10))
        #expect(!updated.headers.contains("Connection"))
        #expect(!updated.headers.contains("Keep-Alive"))
        #expect(!updated.headers.contains("Age"), "the old Age described the old response")
        #expect(updated.status == 200)
        #expect(updated.responseTime == HTTPFixture.time(10))
        #expect(updated.requestTime == HTTPFixture.time(9))
        #expect(CachePolicyEvaluator().isFresh(updated, now: HTTPFixture.time(12)))
    }

    @Test("a 304 without Date dates the response to its arrival; an Age it carries is kept")
    func updateDate() throws {
        let updated = try #require(update([("Age", "4")], at: 20))
        #expect(updated.headers["Date"] == HTTPFixture.httpDate(20))
        #expect(updated.headers["Age"] == "4")
        #expect(updated.headers["X-Test-Header"] == "old")
        #expect(updated.headers.map(\.name).filter { $0 == "Date" }.count == 1)
    }

    @Test("a 304 with a different validator does not update")
    func validatorMismatch() {
        #expect(update([("ETag", "\"v2\"")]) == nil)
        #expect(update([("ETag", "W/\"v1\"")]) != nil, "weak comparison")
        #expect(update([]) != nil, "no validators: it can only mean this response")
        let dated = HTTPFixture.stored(["Last-Modified": HTTPFixture.httpDate(-100)])
        let sameDate = HTTPResponseHead(status: 304, headers: ["Last-Modified": HTTPFixture.httpDate(-100)])
        let otherDate = HTTPResponseHead(status: 304, headers: ["Last-Modified": HTTPFixture.httpDate(-50)])
        #expect(dated.updating(with: sameDate, requestTime: HTTPFixture.start, responseTime: HTTPFixture.start) != nil)
        #expect(dated.updating(with: otherDate, requestTime: HTTPFixture.start, responseTime: HTTPFixture.start) == nil)
        let untagged = HTTPFixture.stored(["Cache-Control": "max-age=1"])
        let tagged = HTTPResponseHead(status: 304, headers: ["ETag": "\"x\""])
        #expect(untagged.updating(with: tagged, requestTime: HTTPFixture.start, responseTime: HTTPFixture.start) == nil)
    }

    @Test("a 304 that adds a qualified no-cache removes the named stored fields")
    func updateAppliesQualifiedNoCache() throws {
        let updated = try #require(update([("Cache-Control", "max-age=60, no-cache=\"x-test-header\"")]))
        #expect(!updated.headers.contains("X-Test-Header"))
    }
}
