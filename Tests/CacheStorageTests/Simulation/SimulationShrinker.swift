import Foundation
import TestSupport

/// Shrinks a failing sequence: removes runs of operations, halving their length down to one,
/// while the shorter sequence still fails from an empty store, and prints what is left as a test.
enum SimulationShrinker {
    /// The shortest failing sequence found within `budget` replays, and its failure.
    static func shrink(
        _ operations: [SimulatedOperation], budget: Int = 400
    ) async -> (operations: [SimulatedOperation], failure: SimulationRunner.Failure?) {
        var current = operations
        var failure = await replay(current)
        guard failure != nil else { return (current, nil) }
        var replays = 1
        var chunk = max(1, current.count / 2)
        while chunk >= 1 && replays < budget {
            var start = 0
            var removedAny = false
            while start < current.count && replays < budget {
                var candidate = current
                candidate.removeSubrange(start..<min(start + chunk, candidate.count))
                replays += 1
                if let found = await replay(candidate) {
                    current = candidate
                    failure = found
                    removedAny = true
                } else {
                    start += chunk
                }
            }
            if !removedAny || chunk > 1 { chunk /= 2 }
            if chunk == 0 && removedAny { chunk = 1 }
        }
        return (current, failure)
    }

    /// The failure `operations` meet from an empty store, if any.
    static func replay(_ operations: [SimulatedOperation]) async -> SimulationRunner.Failure? {
        let directory = TemporaryDirectory("simulation-replay")
        defer { withExtendedLifetime(directory) {} }
        do {
            let runner = try SimulationRunner(directory: directory.url, seed: 0, fullCheckInterval: 50)
            var remaining = operations[...]
            return await runner.run { _ in remaining.popFirst() }.failure
        } catch {
            return SimulationRunner.Failure(step: -1, message: "could not open the store: \(error)")
        }
    }

    /// `operations` as a test to paste into `StoreSimulationTests`.
    static func asTest(_ operations: [SimulatedOperation], seed: UInt64) -> String {
        """
            @Test func seed\(seed)() async {
                await Self.expectNoFailure([
        \(operations.map { "            \($0.swiftLiteral)," }.joined(separator: "\n"))
                ])
            }
        """
    }
}
