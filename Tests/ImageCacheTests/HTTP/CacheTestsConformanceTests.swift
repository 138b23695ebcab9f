import CacheConformance
import Foundation
import TestSupport
import Testing

@testable import HTTPCaching
@testable import ImageCache

@Suite("http-tests/cache-tests, replayed against the evaluator")
struct CacheTestsConformanceTests {
    /// Floors this replay reaches today (191 evaluated, 182 predictions and 181 full passes, every
    /// required test); a regression in the evaluator drops below them. The misses are deliberate
    /// choices listed in the report: RFC-backed readings of "check" tests and two optimisations.
    static let minimumEvaluated = 191
    static let minimumTypeMatches = 182
    static let minimumFullPasses = 178
    /// Cases failed on purpose: they expect `Set-Cookie`/`Set-Cookie2` to be stored and replayed
    /// (RFC 9111 §3.1 asks a cache to keep every field), but a stored cookie is a credential at rest
    /// that `cachectl` could print and every hit would set again, so the cache drops them (see
    /// `StorableFields`).
    static let deliberateDeviations: Set<String> = [
        "headers-store-Set-Cookie2", "304-etag-update-response-Set-Cookie", "304-etag-update-response-Set-Cookie2",
    ]

    static func privateTests() throws -> [CacheTestsCase] {
        let root = try #require(SharedFixtures.root)
        let file = try CacheTestsFile.load(from: root.appendingPathComponent("http-cache-tests/cases.json"))
        return file.tests.filter(\.applies.private)
    }

    static func replay(_ tests: [CacheTestsCase], with evaluator: CachePolicyEvaluator) -> [CacheTestsReplay.Report] {
        tests.filter { CacheTestsReplay.exclusionReason($0) == nil }.map {
            CacheTestsReplay(evaluator: evaluator).run($0)
        }
    }

    @Test(
        "private-cache cases decided by headers: the evaluator predicts cached / not cached / validated",
        .enabled(if: SharedFixtures.isAvailable))
    func replay() throws {
        let tests = try Self.privateTests()
        var excluded: [String: Int] = [:]
        for test in tests {
            if let reason = CacheTestsReplay.exclusionReason(test) { excluded[reason, default: 0] += 1 }
        }
        let reports = Self.replay(tests, with: CachePolicyEvaluator())
        let twoStep = Set(tests.filter { $0.requests.count == 2 }.map(\.id))

        let typeMatches = reports.filter(\.typesMatch).count
        let fullPasses = reports.filter(\.passes).count
        let single = reports.filter { twoStep.contains($0.id) }
        let exclusions = excluded.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        print("cache-tests replay: \(tests.count) private-cache tests, \(reports.count) evaluated")
        print("  excluded: " + exclusions.joined(separator: ", "))
        print("  cached/not-cached/validated predictions matched: \(typeMatches)/\(reports.count)")
        print(
            "    of which one stored response + the next request: \(single.filter(\.typesMatch).count)/\(single.count)")
        print("  all checks passed (status, headers, origin log too): \(fullPasses)/\(reports.count)")
        for kind in ["required", "optimal", "check"] {
            let ofKind = reports.filter { $0.kind == kind }
            let predicted = ofKind.filter(\.typesMatch).count
            print("    \(kind): \(predicted)/\(ofKind.count) predictions, \(ofKind.filter(\.passes).count) full")
        }
        for report in reports where !report.passes {
            let failures = (report.typeFailures + report.otherFailures).joined(separator: "; ")
            print("  ✗ [\(report.kind)] \(report.id): \(failures)")
        }

        #expect(reports.count >= Self.minimumEvaluated)
        #expect(typeMatches >= Self.minimumTypeMatches)
        #expect(fullPasses >= Self.minimumFullPasses)
        for report in reports where report.kind == "required" && !Self.deliberateDeviations.contains(report.id) {
            #expect(report.passes, "\(report.id): \(report.typeFailures + report.otherFailures)")
        }
    }

    @Test(
        "the replay tells wrong caching rules apart: broken evaluators fall below the floors",
        .enabled(if: SharedFixtures.isAvailable),
        arguments: [
            CachePolicyEvaluator(override: .neverExpire), CachePolicyEvaluator(heuristicFraction: 0),
            CachePolicyEvaluator(override: .fixedTimeToLive(.seconds(1))),
        ])
    func replayDiscriminates(evaluator: CachePolicyEvaluator) throws {
        let matches = Self.replay(try Self.privateTests(), with: evaluator).filter(\.typesMatch).count
        print("cache-tests replay, deliberately wrong evaluator \(evaluator): \(matches) predictions matched")
        #expect(matches < Self.minimumTypeMatches)
    }
}
