import Foundation
import Testing

@testable import HTTPCaching
@testable import ImageCache

@Suite("HeaderFields: an ordered, case-insensitive field list")
struct HeaderFieldsTests {
    @Test("lookups ignore case and keep every line in order")
    func caseInsensitiveLookups() {
        let headers = HTTPFixture.headers([
            ("Cache-Control", "max-age=1"), ("ETag", "\"a\""), ("cache-control", "public"),
        ])
        #expect(headers.values(for: "CACHE-CONTROL") == ["max-age=1", "public"])
        #expect(headers["cache-control"] == "max-age=1, public")
        #expect(headers.firstValue(for: "Cache-control") == "max-age=1")
        #expect(headers.contains("etag"))
        #expect(!headers.contains("Age"))
        #expect(headers["Age"] == nil)
        #expect(headers.count == 3)
    }

    @Test("values are trimmed of surrounding whitespace, names keep their spelling")
    func trimsValues() {
        let headers: HeaderFields = ["X-Thing": " \t spaced out \t"]
        #expect(headers.first?.value == "spaced out")
        #expect(headers.first?.name == "X-Thing")
        #expect(headers.description == "X-Thing: spaced out")
    }

    @Test("setting through the subscript replaces every line in place of the first; nil removes")
    func subscriptReplaces() {
        var headers = HTTPFixture.headers([("A", "1"), ("B", "2"), ("a", "3"), ("C", "4")])
        headers["A"] = "9"
        #expect(headers.map(\.description) == ["A: 9", "B: 2", "C: 4"])
        headers["D"] = "new"
        #expect(headers.map(\.name) == ["A", "B", "C", "D"])
        headers["b"] = nil
        #expect(headers.map(\.name) == ["A", "C", "D"])
    }

    @Test("replaceAll keeps position and writes one line per value")
    func replaceAllKeepsPosition() {
        var headers = HTTPFixture.headers([("X", "0"), ("Vary", "a"), ("Y", "1"), ("vary", "b")])
        headers.replaceAll(named: "VARY", with: ["c", "d"])
        #expect(headers.map(\.description) == ["X: 0", "Vary: c", "Vary: d", "Y: 1"])
    }

    @Test("list members split across lines, honour quoted commas and drop empty members")
    func listMembers() {
        let headers = HTTPFixture.headers([("Vary", ", Accept ,"), ("Vary", "Foo,,Bar"), ("X", "a=\"1, 2\", b")])
        #expect(headers.listMembers(for: "vary") == ["Accept", "Foo", "Bar"])
        #expect(headers.listMembers(for: "X") == ["a=\"1, 2\"", "b"])
        #expect(headers.listMembers(for: "missing").isEmpty)
    }

    @Test("equality and hashing ignore the case of names, not of values")
    func equality() {
        let lower: HeaderFields = ["content-type": "image/png"]
        let upper: HeaderFields = ["Content-Type": "image/png"]
        #expect(lower == upper)
        #expect(Set([lower, upper]).count == 1)
        #expect(lower != ["Content-Type": "IMAGE/PNG"])
        #expect(HTTPFixture.headers([("A", "1"), ("B", "2")]) != HTTPFixture.headers([("B", "2"), ("A", "1")]))
    }

    @Test("the binary encoding round-trips repeats, order, empty values and non-ASCII")
    func encodingRoundTrips() throws {
        let headers = HTTPFixture.headers([
            ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2"), ("X-Empty", ""), ("X-Ünïcode", "naïve ☕️"),
            ("X-Long", String(repeating: "v", count: 70_000)),
        ])
        let decoded = try #require(HeaderFields(encoded: headers.encoded()))
        #expect(decoded == headers)
        #expect(decoded.map(\.name) == headers.map(\.name))
        #expect(HeaderFields(encoded: HeaderFields().encoded()) == HeaderFields())
    }

    @Test("the encoding is stable: a known list encodes to known bytes")
    func encodingIsStable() {
        let headers: HeaderFields = ["A": "1"]
        #expect(Array(headers.encoded()) == [0x48, 0x46, 0x01, 0x01, 0x01, 0x41, 0x01, 0x31])
    }

    @Test("decoding rejects truncation, trailing bytes, bad versions, invalid UTF-8 and huge counts")
    func decodingRejectsDamage() {
        let valid = Array(HTTPFixture.headers([("Name", "value"), ("Other", "x")]).encoded())
        for length in 0..<valid.count {
            #expect(HeaderFields(encoded: Data(valid.prefix(length))) == nil, "prefix of \(length) bytes")
        }
        #expect(HeaderFields(encoded: Data(valid + [0])) == nil)
        var wrongVersion = valid
        wrongVersion[2] = 2
        #expect(HeaderFields(encoded: Data(wrongVersion)) == nil)
        #expect(HeaderFields(encoded: Data([0x48, 0x46, 1, 1, 1, 0xFF, 0])) == nil)
        #expect(HeaderFields(encoded: Data([0x48, 0x46, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F])) == nil)
        let overlongVarint = [UInt8](repeating: 0xFF, count: 12)
        #expect(HeaderFields(encoded: Data([0x48, 0x46, 1] + overlongVarint)) == nil)
        #expect(HeaderFields(encoded: Data([0x48, 0x46, 1, 1, 0, 0])) == nil, "empty name")
    }
}
