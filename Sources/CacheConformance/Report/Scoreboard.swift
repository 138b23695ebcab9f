import Foundation

/// The score of a run by test kind, beside the published implementations' scores on the same tests.
///
/// Only results that are exactly `true` count, as on cache-tests.fyi: a setup failure, an error
/// or a test the API cannot express is not a pass.
package struct Scoreboard: Sendable {
    /// One kind's tally (or the total's).
    package struct Tally: Sendable, Hashable {
        package let kind: String
        package var passed = 0
        package var total = 0
        /// Passes of each published implementation on the same tests, by implementation key.
        package var upstreamPassed: [String: Int] = [:]

        mutating func count(_ test: CacheTestsCase, passed: Bool) {
            total += 1
            if passed { self.passed += 1 }
            for (key, result) in test.upstreamResults where result == .passed { upstreamPassed[key, default: 0] += 1 }
        }
    }

    /// The kinds in the order they are reported.
    package static let kinds = ["required", "optimal", "check"]

    /// One tally per kind, in ``kinds`` order.
    package let tallies: [Tally]
    /// The tally over every test.
    package let overall: Tally
    private let implementations: [CacheTestsFile.Implementation]

    package init(tests: [CacheTestsCase], results: [String: TestOutcome], implementations: [CacheTestsFile.Implementation]) {
        var tallies = Self.kinds.map { Tally(kind: $0) }
        var overall = Tally(kind: "total")
        for test in tests {
            let passed = results[test.id]?.isPassed == true
            overall.count(test, passed: passed)
            if let index = tallies.firstIndex(where: { $0.kind == test.kind }) {
                tallies[index].count(test, passed: passed)
            } else {
                tallies.append(Tally(kind: test.kind))
                tallies[tallies.count - 1].count(test, passed: passed)
            }
        }
        self.tallies = tallies
        self.overall = overall
        self.implementations = implementations
    }

    /// The tally for `kind` (`total` for all), or an empty one.
    package func tally(_ kind: String) -> Tally {
        kind == overall.kind ? overall : tallies.first { $0.kind == kind } ?? Tally(kind: kind)
    }

    /// One line per kind and one for the total: `required: 101 true of 101   (published: chrome 87, …)`.
    package var lines: [String] {
        (tallies + [overall]).map { tally in
            let upstream = implementations.map { "\($0.key) \(tally.upstreamPassed[$0.key] ?? 0)" }.joined(separator: ", ")
            return "\(tally.kind): \(tally.passed) true of \(tally.total)   (published: \(upstream))"
        }
    }
}
