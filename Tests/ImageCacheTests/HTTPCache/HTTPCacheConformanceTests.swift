import CacheConformance
import Foundation
import ImageCache
import TestSupport
import Testing

/// The conformance harness in-process: every private-cache test of http-tests/cache-tests replayed
/// against `HTTPCache` over a real loopback origin, with real pauses, scored as cache-tests.fyi does.
@Suite("HTTPCache against http-tests/cache-tests", .enabled(if: SharedFixtures.isAvailable))
struct HTTPCacheConformanceTests {
    /// What the harness reaches (`http-cache-conformance` prints the same): 100 of the 101 required
    /// tests, 45 of 53 optimal, 48 of 60 checks, 193 of 214 in all; browsers score 142–148 in all,
    /// 87–89 required. The misses are listed when this test runs, each a deliberate choice (one
    /// response per URL, no partial-content storage, RFC-backed readings of invalid directives,
    /// and `Set-Cookie`/`Set-Cookie2` never stored, which costs the one required miss,
    /// `headers-store-Set-Cookie2`, and two 304-update checks: a stored cookie is a credential at
    /// rest, see `StorableFields`).
    ///
    /// The suite runs on real time with `Date` at one-second resolution, so on a machine loaded by
    /// the rest of the tests a `max-age=2` response can go stale before the next request: misses are
    /// run a second time (``runWithRerun``), and only a test that fails twice counts. So the
    /// required floor is the full score; the others keep a test or two of slack for a second run
    /// that is loaded too. A real regression costs more (the never-expiring cache below loses a dozen).
    static let floors = ["required": 100, "optimal": 44, "check": 47, "total": 191]
    /// Through `URLSessionTransport`: the same, less `304-etag-update-response-Content-Encoding`
    /// (Foundation undoes the encoding itself, so the cache never sees the header it should update).
    static let urlSessionFloors = ["required": 100, "optimal": 44, "check": 46, "total": 190]

    static func cases() throws -> CacheTestsFile {
        let root = try #require(SharedFixtures.root)
        return try CacheTestsFile.load(from: root.appendingPathComponent("http-cache-tests/cases.json"))
    }

    // The limit only catches a hang: the replay's real pauses and its reruns took 320-325 s on a
    // slower machine with the crash suites beside it (about 200 s before).
    @Test(
        "every private-cache test replayed over the network: the score stays at or above its floors",
        .timeLimit(.minutes(10)))
    func score() async throws {
        try await Self.scoreAgainstFloors(Self.floors, label: "")
    }

    @Test(
        "the same replay through URLSessionTransport, the production transport, stays at or above its floors",
        .timeLimit(.minutes(10)))
    func scoreThroughURLSession() async throws {
        try await Self.scoreAgainstFloors(Self.urlSessionFloors, label: "URLSession") { $0.transport = URLSessionTransport() }
    }

    /// Replays every private-cache test (misses once more, see ``runWithRerun``), prints the score
    /// and the misses under `label`, and expects each kind at or above its floor.
    static func scoreAgainstFloors(
        _ floors: [String: Int], label: String, configure: (inout ConformanceRun) -> Void = { _ in }
    ) async throws {
        let file = try cases()
        let tests = file.privateTests
        #expect(tests.count == 214)
        let results = try await runWithRerun(tests, configure: configure)
        let scoreboard = Scoreboard(tests: tests, results: results, implementations: file.implementations)
        let prefix = label.isEmpty ? "" : "\(label) "
        let reruns = TestScale.current.replayReruns
        print("http-cache-conformance \(prefix)(\(TestScale.current)): misses run again up to \(reruns.count) times, \(reruns.map(String.init).joined(separator: ", ")) at once")
        for line in scoreboard.lines { print("http-cache-conformance \(label.isEmpty ? "" : "(\(label)) ")\(line)") }
        for test in tests where results[test.id]?.isPassed != true {
            print("  ✗ \(prefix)[\(test.kind)] \(test.id): \(results[test.id].map { "\($0)" } ?? "no result")")
        }
        for (kind, floor) in floors {
            let tally = scoreboard.tally(kind)
            #expect(tally.passed >= floor, "\(prefix)\(kind): \(tally.passed) true of \(tally.total), floor \(floor)")
        }
    }

    /// Runs `tests`, then those that still missed twice more a few at a time and (at the full
    /// ``TestScale``) three times one at a time: a test whose pauses are measured in whole seconds
    /// can miss on a machine loaded by the rest of the suite, and the later runs show whether the
    /// miss was the machine's or the cache's (the first run missed 23–34 of the tests through
    /// URLSession in six full runs on one machine, where 23 miss by design; a second run once still left two of the machine's, and in
    /// one CI run a third still left `cc-resp-must-revalidate-stale`, whose second request, meant
    /// to find a `max-age=2` response fresh, reached the origin; on a slower machine, beside the
    /// crash suites, `304-etag-update-response-X-Content-Foo` missed all four runs the same way,
    /// its third request after the 304 that freshened a `max-age=2` response). A test that fails
    /// every run counts as failed, as one that fails by design or by a wrong rule does. The reruns
    /// are printed.
    static func runWithRerun(
        _ tests: [CacheTestsCase], configure: (inout ConformanceRun) -> Void = { _ in }
    ) async throws -> [String: TestOutcome] {
        var first = ConformanceRun(tests: tests)
        configure(&first)
        var results = try await first.run()
        for concurrency in TestScale.current.replayReruns {
            let missed = tests.filter { results[$0.id]?.isPassed != true }
            guard !missed.isEmpty else { break }
            var again = ConformanceRun(tests: missed)
            configure(&again)
            again.concurrency = concurrency
            let rerun = try await again.run()
            let recovered = missed.filter { rerun[$0.id]?.isPassed == true }
            for test in recovered { results[test.id] = rerun[test.id] }
            print("http-cache-conformance: \(missed.count) missed, \(recovered.count) passed when run again: \(recovered.map(\.id))")
        }
        return results
    }

    @Test(
        "the replay tells wrong caching rules apart: each fails tests the correct rules pass",
        arguments: [
            CachePolicyEvaluator(override: .neverExpire), CachePolicyEvaluator(heuristicFraction: 0),
            CachePolicyEvaluator(override: .fixedTimeToLive(.seconds(1))),
        ])
    func discriminates(wrongRules: CachePolicyEvaluator) async throws {
        // The tests without pauses run in well under a second; a cache that keeps everything fresh
        // for ever, one with no heuristic freshness, or one that overrides every lifetime serves or
        // fetches where the suite requires the opposite.
        let tests = try Self.cases().privateTests.filter { $0.requests.allSatisfy { $0.pauseAfterS == 0 } }
        // The correct rules' misses are run again, as the score's are: on a machine loaded by the
        // rest of the suite, two full runs had 25 of these 68 tests send their second request to the
        // origin (they pass alone and in other full runs); a second run tells the machine's misses
        // from the rules'.
        let correct = try await Self.runWithRerun(tests)
        var broken = ConformanceRun(tests: tests)
        broken.configureCache = { $0.evaluator = wrongRules }
        let wrong = try await broken.run()
        let passes = { (results: [String: TestOutcome]) in results.values.filter(\.isPassed).count }
        print("http-cache-conformance without pauses: \(passes(correct)) of \(tests.count); override \(wrongRules.override), heuristic \(wrongRules.heuristicFraction): \(passes(wrong))")
        #expect(passes(wrong) < passes(correct))
        #expect(tests.contains { $0.kind != "check" && correct[$0.id] == .passed && wrong[$0.id] != .passed })
    }
}
