import Foundation
import Testing

@testable import HTTPCaching
@testable import ImageCache

@Suite("Vary matching (RFC 9111 §4.1)")
struct VaryTests {
    let evaluator = CachePolicyEvaluator()

    func matches(vary: [String], original: [(String, String)], new: [(String, String)]) -> Bool {
        let headers = HTTPFixture.headers([("Cache-Control", "max-age=60")] + vary.map { ("Vary", $0) })
        let stored = HTTPFixture.stored(headers, request: HTTPFixture.request(original))
        return evaluator.matchesVary(stored, request: HTTPFixture.request(new))
    }

    @Test("no Vary matches any request")
    func noVary() {
        #expect(matches(vary: [], original: [("Foo", "1")], new: [("Foo", "2")]))
    }

    @Test("named fields must be equal; field names are case-insensitive")
    func namedFields() {
        #expect(matches(vary: ["Foo"], original: [("Foo", "1")], new: [("foo", "1")]))
        #expect(!matches(vary: ["Foo"], original: [("Foo", "1")], new: [("Foo", "2")]))
        #expect(
            matches(vary: ["foo, BAR"], original: [("Foo", "1"), ("Bar", "abc")], new: [("Bar", "abc"), ("Foo", "1")]))
        #expect(
            !matches(
                vary: ["Foo, Bar, Baz"], original: [("Foo", "1"), ("Bar", "abc"), ("Baz", "789")],
                new: [("Foo", "2"), ("Bar", "abc"), ("Baz", "789")]))
    }

    @Test("a field absent from one request matches only if absent from the other")
    func absence() {
        #expect(!matches(vary: ["Foo"], original: [("Foo", "1")], new: []))
        #expect(!matches(vary: ["Foo"], original: [], new: [("Foo", "1")]))
        #expect(
            matches(
                vary: ["Foo, Bar, Baz"], original: [("Foo", "1"), ("Baz", "789")], new: [("Foo", "1"), ("Baz", "789")]))
        #expect(!matches(vary: ["Foo"], original: [("Foo", "")], new: []))
    }

    @Test("Vary: * never matches, in any spelling")
    func star() {
        for vary in [["*"], ["*, *"], ["*", "*"], [", *"], ["", "*"], ["*, Foo"], ["Foo, *"]] {
            #expect(!matches(vary: vary, original: [("Foo", "1")], new: [("Foo", "1")]), "\(vary)")
        }
    }

    @Test("values are compared as combined lists: repeated lines equal one comma-joined line")
    func combinedLines() {
        #expect(matches(vary: ["Foo"], original: [("Foo", "1, 2")], new: [("Foo", "1"), ("Foo", "2")]))
        #expect(matches(vary: ["Foo"], original: [("Foo", "1,2")], new: [("Foo", "1 ,  2")]))
        #expect(!matches(vary: ["Foo"], original: [("Foo", "1, 2")], new: [("Foo", "2, 1")]))
        #expect(!matches(vary: ["Foo"], original: [("Foo", "a")], new: [("Foo", "A")]))
    }

    @Test("Accept-Language and Accept-Encoding ignore member order and case")
    func languageNormalisation() {
        #expect(
            matches(
                vary: ["Accept-Language"], original: [("Accept-Language", "en, de")],
                new: [("Accept-Language", "de, en")]))
        #expect(
            matches(
                vary: ["Accept-Language"], original: [("Accept-Language", "en, de")],
                new: [("Accept-Language", "eN, De")]))
        #expect(
            matches(
                vary: ["Accept-Encoding"], original: [("Accept-Encoding", "gzip, br")],
                new: [("Accept-Encoding", "BR,gzip")]))
        #expect(
            !matches(vary: ["Accept-Language"], original: [("Accept-Language", "en")], new: [("Accept-Language", "fr")])
        )
        #expect(
            matches(
                vary: ["Accept-Language"], original: [("Accept-Language", "fr;q=0.5, de")],
                new: [("Accept-Language", "de, fr; q=0.5")]))
    }

    @Test("the stored response records exactly the request fields Vary names")
    func recordsVaryingFields() {
        let stored = HTTPFixture.stored(
            HTTPFixture.headers([("Vary", "Accept, foo"), ("Vary", "Accept")]),
            request: HTTPFixture.request([("Accept", "image/webp"), ("Foo", "1"), ("Foo", "2"), ("Cookie", "secret")]))
        #expect(stored.varyingRequestFingerprints.map(\.name) == ["accept", "foo"])
        #expect(stored.varyingRequestFingerprints.allSatisfy { $0.value.count == 64 && !$0.value.contains("webp") })
        #expect(stored.varyingRequestHeaders.isEmpty, "no request value is kept in clear")
    }

    @Test("a Vary-named value is kept as a keyed fingerprint: it matches under the same key only")
    func fingerprintsAreKeyed() {
        let key = FingerprintKey.random()
        let stored = StoredResponse(
            response: HTTPResponseHead(status: 200, headers: HTTPFixture.headers([("Vary", "Authorization")])),
            request: HTTPFixture.request([("Authorization", "Bearer secret")]), requestTime: HTTPFixture.start,
            responseTime: HTTPFixture.start, fingerprintKey: key)
        #expect(!stored.encoded().contains(Data("secret".utf8)))
        var sameKey = evaluator
        sameKey.fingerprintKey = key
        #expect(sameKey.matchesVary(stored, request: HTTPFixture.request([("Authorization", "Bearer secret")])))
        #expect(!sameKey.matchesVary(stored, request: HTTPFixture.request([("Authorization", "Bearer other")])))
        #expect(!sameKey.matchesVary(stored, request: HTTPFixture.request()))
        #expect(!evaluator.matchesVary(stored, request: HTTPFixture.request([("Authorization", "Bearer secret")])))
    }

    @Test("fingerprints are HMAC-SHA256 (RFC 4231, test case 2)")
    func hmacVector() {
        let code = HMACSHA256.authenticationCode(Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8))
        #expect(LowercaseHex.string(code) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }
}
