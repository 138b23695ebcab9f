import Foundation
import Testing

@testable import HTTPCaching
@testable import ImageCache

/// The freshness summary the disk tier keeps must answer exactly as parsing the headers does, for
/// every kind of freshness information and every override, and be ignored when it cannot.
@Suite("Stored freshness summary")
struct StoredFreshnessTests {
    static let responses: [(String, StoredResponse)] = [
        ("max-age", HTTPFixture.stored(["Cache-Control": "max-age=600"])),
        ("max-age with Age", HTTPFixture.stored(["Cache-Control": "max-age=600", "Age": "120"], delay: 2)),
        ("Expires", HTTPFixture.stored(["Expires": HTTPDate.string(from: HTTPFixture.start + 300)])),
        ("invalid Expires", HTTPFixture.stored(["Expires": "0"])),
        ("heuristic", HTTPFixture.stored(["Last-Modified": HTTPDate.string(from: HTTPFixture.start - 86_400)])),
        ("no freshness", HTTPFixture.stored(["ETag": "\"e\""])),
        ("404, heuristic", HTTPFixture.stored(status: 404, ["Last-Modified": HTTPDate.string(from: HTTPFixture.start - 9_000)])),
        ("immutable", HTTPFixture.stored(["Cache-Control": "public, max-age=31536000, immutable"])),
        ("old Date", HTTPFixture.stored(["Date": HTTPDate.string(from: HTTPFixture.start - 50), "Cache-Control": "max-age=60"])),
    ]
    static let overrides: [FreshnessOverride] = [
        .none, .minimumTimeToLive(.seconds(3_600)), .fixedTimeToLive(.seconds(5)), .neverExpire,
    ]

    @Test("lifetime, age and expiry from the summary equal those from the headers", arguments: overrides)
    func agreesWithHeaders(override: FreshnessOverride) throws {
        let evaluator = CachePolicyEvaluator(override: override)
        for (name, stored) in Self.responses {
            let summary = StoredFreshness(stored, evaluator: CachePolicyEvaluator())
            let summarised = try #require(
                summary.facts(under: evaluator, status: stored.status, responseTime: stored.responseTime), "\(name)")
            #expect(summarised == evaluator.facts(of: stored), "\(name)")
            for offset in [0.0, 4, 59, 61, 299, 301, 3_599, 3_601, 100_000] {
                let now = stored.responseTime + offset
                #expect(summarised.isFresh(at: now) == evaluator.isFresh(stored, now: now), "\(name) at +\(offset) s")
            }
        }
    }

    @Test("a Vary a plain request fails and an unqualified no-cache are recorded; other heuristic settings make the summary unusable")
    func flagsAndSettings() {
        let acceptRequest = HTTPRequestHead(method: "GET", headers: ["Accept": "image/webp"])
        let varying = StoredFreshness(
            HTTPFixture.stored(["Cache-Control": "max-age=60", "Vary": "Accept"], request: acceptRequest), evaluator: .init())
        #expect(varying.varies && !varying.noCache)
        // Stored for a request without Accept: a plain request selects the same variant.
        let plainVariant = StoredFreshness(HTTPFixture.stored(["Cache-Control": "max-age=60", "Vary": "Accept"]), evaluator: .init())
        #expect(!plainVariant.varies)
        #expect(StoredFreshness(HTTPFixture.stored(["Vary": "*"]), evaluator: .init()).varies)
        let unqualified = StoredFreshness(HTTPFixture.stored(["Cache-Control": "no-cache, max-age=60"]), evaluator: .init())
        #expect(unqualified.noCache && !unqualified.varies)
        // The qualified form restricts which fields may be sent without validation, not the response (§5.2.2.4).
        let qualified = StoredFreshness(HTTPFixture.stored(["Cache-Control": "no-cache=\"Set-Cookie\", max-age=60"]), evaluator: .init())
        #expect(!qualified.noCache && !qualified.varies)
        let stored = HTTPFixture.stored(["Last-Modified": HTTPDate.string(from: HTTPFixture.start - 86_400)])
        let summary = StoredFreshness(stored, evaluator: CachePolicyEvaluator())
        let otherFraction = CachePolicyEvaluator(heuristicFraction: 0.2)
        let capped = CachePolicyEvaluator(maximumHeuristicLifetime: .seconds(60))
        #expect(summary.facts(under: otherFraction, status: 200, responseTime: stored.responseTime) == nil)
        #expect(summary.facts(under: capped, status: 200, responseTime: stored.responseTime) == nil)
        let cappedSummary = StoredFreshness(stored, evaluator: capped)
        #expect(cappedSummary.facts(under: capped, status: 200, responseTime: stored.responseTime)?.lifetime == 60)
    }

    @Test("the annotated encoding round-trips both parts; the public decoder reads it as the response")
    func encoding() throws {
        let stored = HTTPFixture.stored(["Cache-Control": "max-age=60", "Vary": "Accept", "ETag": "\"v\""])
        let summary = StoredFreshness(stored, evaluator: CachePolicyEvaluator(maximumHeuristicLifetime: .seconds(10)))
        let blob = stored.encoded(freshness: summary)
        let decoded = try #require(StoredResponse.decodeAnnotated(blob))
        #expect(decoded.response == stored)
        #expect(decoded.freshness == summary)
        #expect(StoredResponse(encoded: blob) == stored)
        #expect(StoredResponse.decodeAnnotated(stored.encoded())?.freshness == nil)
        let bytes = Array(blob)
        for length in 0..<bytes.count {
            #expect(StoredResponse.decodeAnnotated(Data(bytes.prefix(length))) == nil, "prefix of \(length) bytes")
        }
        #expect(StoredResponse(encoded: Data(bytes + [0])) == nil)
        var badFlags = bytes
        badFlags[badFlags.count - 1] = 0x80
        #expect(StoredResponse(encoded: Data(badFlags)) == nil)
        #expect(StoredResponse(encoded: Data([0x53, 0x52, 3] + bytes.dropFirst(3))) == nil)
    }
}
