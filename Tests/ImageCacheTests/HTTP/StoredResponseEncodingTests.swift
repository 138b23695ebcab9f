import Foundation
import Testing

@testable import HTTPCaching
@testable import ImageCache

@Suite("StoredResponse encoding")
struct StoredResponseEncodingTests {
    @Test("a stored response round-trips exactly, times to the bit")
    func roundTrip() throws {
        let stored = StoredResponse(
            status: 203, headers: HTTPFixture.headers([("Cache-Control", "max-age=60"), ("Vary", "Accept")]),
            requestTime: Date(timeIntervalSinceReferenceDate: 12_345.678_9),
            responseTime: Date(timeIntervalSinceReferenceDate: 12_346.000_1),
            varyingRequestHeaders: ["accept": "image/*"], varyingRequestFingerprints: ["accept": "0a1b"])
        let decoded = try #require(StoredResponse(encoded: stored.encoded()))
        #expect(decoded == stored)
        #expect(decoded.requestTime.timeIntervalSinceReferenceDate == 12_345.678_9)
    }

    @Test("damaged or truncated data does not decode")
    func damage() {
        let bytes = Array(HTTPFixture.stored(["ETag": "\"x\""]).encoded())
        for length in 0..<bytes.count {
            #expect(StoredResponse(encoded: Data(bytes.prefix(length))) == nil, "prefix of \(length) bytes")
        }
        #expect(StoredResponse(encoded: Data(bytes + [1])) == nil)
        for version: UInt8 in [1, 2, 4, 5] {
            #expect(StoredResponse(encoded: Data([0x53, 0x52, version] + bytes.dropFirst(3))) == nil, "as version \(version)")
        }
    }

    /// The version 1 encoding an earlier release wrote: `Vary`-selected request values in clear.
    static func earlierVersion(headers: HeaderFields, varying: HeaderFields) -> Data {
        var bytes: [UInt8] = [0x53, 0x52, 1]
        HTTPBlobCoding.appendVarint(200, to: &bytes)
        for time in [HTTPFixture.start, HTTPFixture.start] {
            HTTPBlobCoding.appendVarint(time.timeIntervalSinceReferenceDate.bitPattern, to: &bytes)
        }
        for fields in [headers, varying] {
            HTTPBlobCoding.appendVarint(UInt64(fields.encoded().count), to: &bytes)
            bytes += fields.encoded()
        }
        return Data(bytes)
    }

    @Test("an earlier version's response still decodes: its Set-Cookie is dropped, its clear Vary values still match")
    func earlierVersionDecodes() throws {
        let blob = Self.earlierVersion(
            headers: HTTPFixture.headers([("Vary", "Authorization"), ("Set-Cookie", "id=1"), ("ETag", "\"a\"")]),
            varying: ["authorization": "Bearer old"])
        let stored = try #require(StoredResponse(encoded: blob))
        #expect(stored.headers["Set-Cookie"] == nil)
        #expect(stored.headers["ETag"] == "\"a\"")
        let evaluator = CachePolicyEvaluator()
        #expect(evaluator.matchesVary(stored, request: HTTPFixture.request([("Authorization", "Bearer old")])))
        #expect(!evaluator.matchesVary(stored, request: HTTPFixture.request([("Authorization", "Bearer new")])))
        // As it may leave the machine: neither the cookie nor the token.
        let exported = try #require(StoredResponse.withoutCredentials(encoded: blob))
        #expect(exported.range(of: Data("Bearer old".utf8)) == nil)
        #expect(exported.range(of: Data("id=1".utf8)) == nil)
        #expect(StoredResponse(encoded: exported)?.headers["ETag"] == "\"a\"")
        let current = HTTPFixture.stored(["ETag": "\"b\""]).encoded()
        #expect(StoredResponse.withoutCredentials(encoded: current) == current)
    }
}
