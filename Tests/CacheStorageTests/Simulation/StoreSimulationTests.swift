import Foundation
import TestSupport
import Testing

/// A seeded, model-checked simulation of every operation on a real store: puts, replacements,
/// derived puts and their sources' replacement or removal, attribute updates, removals, evictions
/// to bytes and to entries, the pointer tail merged every few puts, compaction, close and reopen,
/// and the same from a second process (see ``SimulationRunner`` and ``SimulationModel``). After
/// every step the store's answer, its listing (every key's size, checksum, attributes and source),
/// its statistics and the bytes of the keys the step named must be what the model says; every
/// fifty steps every key's bytes are read and the store verified.
///
/// A failure prints its seed and the sequence shrunk to what still fails, as a test to add here.
@Suite("Store simulation")
struct StoreSimulationTests {
    /// Operations in one sequence (one store, one second process, started again now and then).
    static let sequenceLength = 2_500

    @Test func seededSequencesKeepEveryRule() async throws {
        let scale = TestScale.current
        let sequences = max(1, scale.simulatedOperations / Self.sequenceLength)
        let firstSeed = ProcessInfo.processInfo.environment["SIMULATION_SEED"].flatMap(UInt64.init) ?? 1
        print("Store simulation: \(sequences) sequences of \(Self.sequenceLength) operations from seed \(firstSeed) (\(scale))")
        var counts: [String: Int] = [:]
        var total = 0
        // Two sequences at a time, each with its own store and second process.
        let seeds = Array(firstSeed..<(firstSeed + UInt64(sequences)))
        for pair in stride(from: 0, to: seeds.count, by: 2).map({ seeds[$0..<min($0 + 2, seeds.count)] }) {
            let results = try await withThrowingTaskGroup(of: SequenceResult.self) { group in
                for seed in pair { group.addTask { try await Self.runSequence(seed: seed) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for result in results.sorted(by: { $0.seed < $1.seed }) {
                total += result.operations
                for (name, count) in result.counts { counts[name, default: 0] += count }
                if let failure = result.failure { Issue.record("\(failure)") }
            }
            if results.contains(where: { $0.failure != nil }) { return }
        }
        print("Store simulation: \(total) operations checked: \(counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")
        #expect(total >= scale.simulatedOperations)
    }

    struct SequenceResult: Sendable {
        var seed: UInt64
        var operations: Int
        var counts: [String: Int]
        /// The failure with its shrunk sequence, as a test to add.
        var failure: String?
    }

    /// One generated sequence from an empty store; a failure comes back shrunk.
    static func runSequence(seed: UInt64) async throws -> SequenceResult {
        let directory = TemporaryDirectory("simulation")
        defer { withExtendedLifetime(directory) {} }
        let runner = try SimulationRunner(directory: directory.url, seed: seed, fullCheckInterval: 50)
        var generator = SimulationGenerator(seed: seed)
        var remaining = sequenceLength
        let (done, failure) = await runner.run { model in
            guard remaining > 0 else { return nil }
            remaining -= 1
            return generator.next(model: model)
        }
        var result = SequenceResult(seed: seed, operations: done.count, counts: runner.counts)
        if let failure {
            let (shrunk, shrunkFailure) = await SimulationShrinker.shrink(done)
            result.failure = """
                Seed \(seed) failed at \(failure). Shrunk to \(shrunk.count) operations\
                \(shrunkFailure.map { ", failing at \($0)" } ?? " (no longer failing alone)"):
                \(SimulationShrinker.asTest(shrunk, seed: seed))
                """
        }
        return result
    }

    /// Runs a sequence from an empty store and records its failure, if any (for shrunk sequences).
    static func expectNoFailure(_ operations: [SimulatedOperation], sourceLocation: SourceLocation = #_sourceLocation) async {
        if let failure = await SimulationShrinker.replay(operations) {
            Issue.record("\(failure)", sourceLocation: sourceLocation)
        }
    }
}
