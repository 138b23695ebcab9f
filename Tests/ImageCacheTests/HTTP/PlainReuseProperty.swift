import Foundation
import Testing
import TestSupport

@testable import HTTPCaching

/// The fast paths' one question, ``CachePolicyEvaluator/plainReuse(of:summary:)``, must answer
/// exactly as the full rule (``CachePolicyEvaluator/decision(for:stored:now:)``) does for a plain
/// `GET`: generated responses, overrides, heuristic settings, summaries and clocks, every
/// fast-path hit a `.useStored` of the full rule and every `.useStored` a fast-path hit.
@Suite("Plain reuse agrees with the full rule")
struct PlainReuseProperty {
    static let seed: UInt64 = 20_261_125
    static let cases = TestScale.current.reuseCases

    @Test("fast-path hit if and only if the full rule says useStored, from headers and from summaries")
    func agreesWithDecision() async throws {
        var random = SeededRandom(seed: Self.seed)
        let plain = HTTPRequestHead(method: "GET", headers: [:])
        var hits = 0
        var declinedOutright = 0
        var summariesUsed = 0
        for index in 0..<Self.cases {
            // Tens of seconds of computing under a loaded run: the thread goes back to Swift's
            // shared pool now and then, so the tests running beside this one keep theirs.
            if index % 200 == 0 { await Task.yield() }
            let stored = Self.response(&random)
            let evaluator = Self.evaluator(&random)
            // The summary as the disk tier would have written it, under these settings or others.
            let writer = Bool.random(using: &random) ? evaluator : Self.evaluator(&random)
            let summary: StoredFreshness? =
                switch Int.random(in: 0..<3, using: &random) {
                case 0: nil
                default: try #require(StoredResponse.decodeAnnotated(
                    stored.encoded(freshness: StoredFreshness(stored, evaluator: writer)))?.freshness)
                }
            if let summary, summary.facts(under: evaluator, status: stored.status, responseTime: stored.responseTime) != nil {
                summariesUsed += 1
            }
            let reuse = evaluator.plainReuse(of: stored, summary: summary)
            if reuse == nil { declinedOutright += 1 }
            #expect(reuse == evaluator.plainReuse(of: stored), "case \(index): summary and headers disagree")
            for now in Self.instants(stored, evaluator, &random) {
                let fast = reuse?.isFresh(at: now) ?? false
                let full = evaluator.decision(for: plain, stored: stored, now: now) == .useStored
                if fast { hits += 1 }
                #expect(
                    fast == full,
                    "case \(index) at \(now.timeIntervalSince(stored.responseTime)) s: fast \(fast), full \(full), \(stored.headers), \(evaluator.override)")
            }
        }
        // The generator reaches every branch: hits, misses by staleness and outright refusals.
        #expect(hits > Self.cases / 4)
        #expect(declinedOutright > Self.cases / 20)
        #expect(summariesUsed > Self.cases / 3)
        print("plain reuse (\(TestScale.current)): \(Self.cases) generated responses, \(hits) fast-path hits")
    }

    /// Exact but for rounding: the expiry is an instant (`Date` holds about 0.1 µs of precision now),
    /// the rule compares ages, so the two may differ within a microsecond of the boundary.
    @Test("the expiry the disk tier records is when the full rule stops finding the response fresh, to the microsecond")
    func recordedExpiryAgrees() async {
        var random = SeededRandom(seed: Self.seed + 1)
        for index in 0..<2_000 {
            if index % 200 == 0 { await Task.yield() }
            let stored = Self.response(&random)
            let evaluator = Self.evaluator(&random)
            let expiry = evaluator.expirationDate(of: stored)
            for now in Self.instants(stored, evaluator, &random) + [expiry.map { $0 + 1e-6 }, expiry.map { $0 - 1e-6 }].compactMap({ $0 })
            where now >= stored.responseTime && expiry.map({ abs(now.timeIntervalSince($0)) < 1e-7 }) != true {
                #expect(evaluator.isFresh(stored, now: now) == (expiry.map { now < $0 } ?? true), "case \(index) at \(now.timeIntervalSince(stored.responseTime)), expiry \(expiry.map { $0.timeIntervalSince(stored.responseTime) } ?? -1)")
            }
        }
    }

    // MARK: Generators

    static func response(_ random: inout SeededRandom) -> StoredResponse {
        var headers: HeaderFields = [:]
        let start = HTTPFixture.start
        var directives: [String] = []
        let pool = [
            "max-age=0", "max-age=60", "max-age=3600", "max-age=abc", "no-cache", "no-cache=\"Set-Cookie\"",
            "must-revalidate", "immutable", "public", "private", "stale-while-revalidate=600", "s-maxage=900",
            "no-transform",
        ]
        for directive in pool where Int.random(in: 0..<5, using: &random) == 0 { directives.append(directive) }
        if !directives.isEmpty { headers.append("Cache-Control", directives.joined(separator: ", ")) }
        if Bool.random(using: &random) {
            headers.append("Date", HTTPDate.string(from: start + Double(Int.random(in: -600...30, using: &random))))
        }
        switch Int.random(in: 0..<4, using: &random) {
        case 0: headers.append("Expires", HTTPDate.string(from: start + Double(Int.random(in: -300...7200, using: &random))))
        case 1: headers.append("Expires", "0")
        default: break
        }
        if Bool.random(using: &random) {
            headers.append("Last-Modified", HTTPDate.string(from: start - Double(Int.random(in: 0...864_000, using: &random))))
        }
        if Int.random(in: 0..<4, using: &random) == 0 { headers.append("Age", String(Int.random(in: 0...4000, using: &random))) }
        if Int.random(in: 0..<3, using: &random) == 0 { headers.append("ETag", "\"v\"") }
        var request = HTTPRequestHead(method: "GET", headers: [:])
        switch Int.random(in: 0..<6, using: &random) {
        case 0: headers.append("Vary", "Accept")
        case 1:
            headers.append("Vary", "Accept")
            request.headers.append("Accept", "image/webp")
        case 2: headers.append("Vary", "*")
        default: break
        }
        let status = [200, 200, 200, 203, 301, 404, 500][Int.random(in: 0..<7, using: &random)]
        return HTTPFixture.stored(
            status: status, headers, request: request, delay: Double(Int.random(in: 0...3, using: &random)))
    }

    static func evaluator(_ random: inout SeededRandom) -> CachePolicyEvaluator {
        let overrides: [FreshnessOverride] = [
            .none, .none, .minimumTimeToLive(.seconds(1_800)), .fixedTimeToLive(.seconds(30)), .neverExpire,
        ]
        return CachePolicyEvaluator(
            override: overrides[Int.random(in: 0..<overrides.count, using: &random)],
            heuristicFraction: [0.1, 0.2][Int.random(in: 0..<2, using: &random)],
            maximumHeuristicLifetime: Bool.random(using: &random) ? nil : .seconds(600))
    }

    /// Instants around the response's arrival and its expiry, the boundary included, and a few
    /// before it arrived (a clock that stepped back).
    static func instants(
        _ stored: StoredResponse, _ evaluator: CachePolicyEvaluator, _ random: inout SeededRandom
    ) -> [Date] {
        var instants = [stored.responseTime, stored.responseTime - 5]
        for _ in 0..<4 { instants.append(stored.responseTime + Double(Int.random(in: 0...10_000, using: &random))) }
        if let expiry = evaluator.expirationDate(of: stored) {
            instants += [expiry, expiry - 0.5, expiry + 0.5]
        }
        return instants
    }
}
