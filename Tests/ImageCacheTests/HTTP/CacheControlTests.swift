import Foundation
import Testing

@testable import HTTPCaching
@testable import ImageCache

@Suite("CacheControl: parsing directives")
struct CacheControlTests {
    @Test("names are lowercased; tokens and quoted strings become arguments")
    func basicParsing() {
        let directives = CacheControl("Max-Age=60, No-CaChE, ext=\"a \\\"quoted\\\" value\", public")
        #expect(directives.directives.map(\.name) == ["max-age", "no-cache", "ext", "public"])
        #expect(directives.first("MAX-AGE")?.argument == "60")
        #expect(directives.first("ext")?.argument == "a \"quoted\" value")
        #expect(directives.first("no-cache")?.argument == nil)
        #expect(directives.maxAge == .seconds(60))
        #expect(directives.noCache == .all)
        #expect(directives.isPublic)
    }

    @Test("every field line is read, in order, as one list")
    func multipleLines() {
        let headers = HTTPFixture.headers([("Cache-Control", "s-maxage=3600"), ("cache-control", "max-age=1")])
        let directives = CacheControl(headers: headers)
        #expect(directives.sharedMaxAge == .seconds(3600))
        #expect(directives.maxAge == .seconds(1))
    }

    @Test("commas and directive names inside quoted strings are not directives")
    func quotedStringsDoNotSplit() {
        #expect(CacheControl("extension=\"max-age=3600\", max-age=1").maxAge == .seconds(1))
        #expect(CacheControl("max-age=1, extension=\"max-age=3600\"").maxAge == .seconds(1))
        #expect(CacheControl("x=\"a, no-store\"").noStore == false)
        #expect(CacheControl("x=\"unterminated, no-store").noStore == false)
    }

    @Test("the first of repeated directives wins (RFC 9111 §4.2.1)")
    func firstOccurrenceWins() {
        #expect(CacheControl("max-age=1800, max-age=1").maxAge == .seconds(1800))
        #expect(CacheControl(fieldValues: ["max-age=1", "max-age=1800"]).maxAge == .seconds(1))
    }

    @Test(
        "delta-seconds: valid, quoted, huge (clamped to 2^31) and invalid (zero) values",
        arguments: [
            ("max-age=3600", 3600), ("max-age=\"3600\"", 3600), ("max-age=0", 0), ("max-age=007", 7),
            ("max-age=2147483647", 2_147_483_647), ("max-age=2147483649", 2_147_483_648),
            ("max-age=99999999999999999999999", 2_147_483_648), ("max-age=-3600", 0), ("max-age=3600.5", 0),
            ("max-age=3600a", 0), ("max-age=", 0), ("max-age", 0), ("max-age= 3600", 0), ("max-age =3600", 0),
            ("max-age=\"\"", 0), ("max-age=+5", 0), ("max-age=1e3", 0),
        ] as [(String, Int64)])
    func deltaSeconds(value: String, seconds: Int64) {
        #expect(CacheControl(value).maxAge == .seconds(seconds))
    }

    @Test("absent durations are nil, not zero")
    func absentIsNil() {
        let directives = CacheControl("public")
        #expect(directives.maxAge == nil)
        #expect(directives.staleWhileRevalidate == nil)
        #expect(directives.maxStale == nil)
        #expect(directives.minFresh == nil)
        #expect(CacheControl("").isEmpty)
        #expect(CacheControl(" , ,, ").isEmpty)
    }

    @Test("a malformed member keeps its name, so restrictive directives still count")
    func malformedMembersKeepTheirName() {
        #expect(CacheControl("no-store =1").noStore)
        #expect(CacheControl("no-store=\"x\"junk").noStore)
        #expect(CacheControl("\"quoted\", =5, no-store").directives.map(\.name) == ["no-store"])
    }

    @Test("qualified no-cache lists fields; unqualified wins; an empty list means all")
    func qualifiedNoCache() {
        #expect(CacheControl("no-cache=\"a\"").noCache == .fields(["a"]))
        #expect(CacheControl("no-cache=\"A, b\", max-age=60").noCache == .fields(["a", "b"]))
        #expect(CacheControl("no-cache=a").noCache == .fields(["a"]))
        #expect(CacheControl("no-cache=\"a\", no-cache").noCache == .all)
        #expect(CacheControl("no-cache=\"\"").noCache == .all)
        #expect(CacheControl("no-cache=\"a\", no-cache=\"b\"").noCache == .fields(["a", "b"]))
        #expect(CacheControl("max-age=60").noCache == nil)
    }

    @Test("response flags")
    func responseFlags() {
        let directives = CacheControl(
            "must-revalidate, proxy-revalidate, must-understand, private, immutable, no-transform, no-store")
        #expect(directives.mustRevalidate)
        #expect(directives.proxyRevalidate)
        #expect(directives.mustUnderstand)
        #expect(directives.isPrivate)
        #expect(directives.isImmutable)
        #expect(directives.noTransform)
        #expect(directives.noStore)
        #expect(!directives.isPublic)
        #expect(CacheControl("stale-while-revalidate=30, stale-if-error=60").staleWhileRevalidate == .seconds(30))
        #expect(CacheControl("stale-while-revalidate=30, stale-if-error=60").staleIfError == .seconds(60))
    }

    @Test("request directives: max-stale with and without a value, min-fresh, only-if-cached")
    func requestDirectives() {
        #expect(CacheControl("max-stale").maxStale == .unlimited)
        #expect(CacheControl("max-stale=1000").maxStale == .limit(.seconds(1000)))
        #expect(CacheControl("max-stale=soon").maxStale == .limit(.zero))
        #expect(CacheControl("min-fresh=20").minFresh == .seconds(20))
        #expect(CacheControl("only-if-cached").onlyIfCached)
    }

    @Test("Pragma: no-cache counts in a request only without Cache-Control (RFC 9111 §5.4)")
    func pragma() {
        #expect(HTTPFixture.request([("Pragma", "no-cache")]).cacheControl.noCache == .all)
        #expect(HTTPFixture.request([("Pragma", "foo, No-Cache")]).cacheControl.noCache == .all)
        #expect(HTTPFixture.request([("Pragma", "foo")]).cacheControl.isEmpty)
        #expect(
            HTTPFixture.request([("Pragma", "no-cache"), ("Cache-Control", "max-age=5")]).cacheControl.noCache == nil)
        #expect(HTTPResponseHead(status: 200, headers: ["Pragma": "no-cache"]).cacheControl.noCache == nil)
    }

    @Test("description writes directives back, quoting non-token arguments")
    func description() {
        #expect(
            CacheControl("max-age=60, no-cache=\"a, b\", x=\"q\\\"\"").description
                == "max-age=60, no-cache=\"a, b\", x=\"q\\\"\"")
    }
}
