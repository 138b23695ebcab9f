import Foundation
import Testing

@testable import ImageCache

@Suite("StoredResponse encoding")
struct StoredResponseEncodingTests {
    @Test("a stored response round-trips exactly, times to the bit")
    func roundTrip() throws {
        let stored = StoredResponse(
            status: 203, headers: HTTPFixture.headers([("Cache-Control", "max-age=60"), ("Vary", "Accept")]),
            requestTime: Date(timeIntervalSinceReferenceDate: 12_345.678_9),
            responseTime: Date(timeIntervalSinceReferenceDate: 12_346.000_1),
            varyingRequestHeaders: ["accept": "image/*"])
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
        #expect(StoredResponse(encoded: Data([0x53, 0x52, 2] + bytes.dropFirst(3))) == nil)
        #expect(StoredResponse(encoded: Data([0x53, 0x52, 3] + bytes.dropFirst(3))) == nil)
    }
}
