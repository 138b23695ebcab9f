import Foundation

/// How much the long suites do: the kill cycles, the simulated power losses, the store of many
/// entries, the reuse property's cases, and the corpus decoding sweep.
///
/// `tools/test` runs the short form of each, so a developer's run covers every behaviour in a few
/// minutes; `tools/test --all` (which CI runs) sets `CACHE_TESTS_FULL=1` and runs them in full.
/// Each long test prints the scale it ran at, so a short run never passes for a full one.
public struct TestScale: Sendable, CustomStringConvertible {
    /// `short` or `full`.
    public var name: String
    /// Kills of a writer at random moments (`CrashTests`).
    public var writerKills: Int
    /// Kills of a process rebuilding a damaged index (`CrashTests`).
    public var indexRecoveryKills: Int
    /// Kills of readers, evictors, writers, purge and verify beside a kept-open store (`CrashTests`).
    public var mixedKills: Int
    /// Readers killed mid-read beside a writer, at least (`CrashTests` goes on until they have
    /// left more slots than LMDB's reader table holds).
    public var killedReaders: Int
    /// Kills of a writer merging the pointer tail (`PointerTailTests`).
    public var tailMergeKills: Int
    /// Simulated power losses per durability mode, `.eachCommit` and `.full` (`PowerLossTests`);
    /// `POWERLOSS_STATES` overrides this and the next at either scale (`tools/soak` runs 2,000).
    public var powerLossStates: Int
    /// Simulated power losses for periodic durability (`PowerLossTests`), which needs more to
    /// reach the few states it keeps whole.
    public var periodicPowerLossStates: Int
    /// Entries in the store of many small entries (`ManyEntriesTests`).
    public var manyEntries: Int
    /// Generated responses the plain-reuse property is checked over (`PlainReuseProperty`).
    public var reuseCases: Int
    /// Of the corpus' files of each format, every `corpusStride`-th one is swept by the per-file
    /// corpus suites (see ``sample(_:by:)``).
    public var corpusStride: Int
    /// Caches damaged by random runs of bytes under as many seeds (`DiskDamageTests`).
    public var damagedStores: Int
    /// Simulated power losses per recorded workload of every operation (`PowerLossWorkloadTests`);
    /// `POWERLOSS_STATES` overrides it too.
    public var workloadPowerLossStates: Int
    /// Opens of a store while another thread swaps a link in and out at one of its names
    /// (`PlantedFilesTests`).
    public var linkSwapOpens: Int
    /// Operations of the model-checked storage simulation (`StoreSimulationTests`);
    /// `SIMULATION_OPERATIONS` overrides it at either scale.
    public var simulatedOperations: Int

    /// Every count at its full size, as CI runs them.
    public static let full = TestScale(
        name: "full", writerKills: 80, indexRecoveryKills: 20, mixedKills: 130, killedReaders: 1_000,
        tailMergeKills: 40, powerLossStates: 400, periodicPowerLossStates: 400, manyEntries: 200_000,
        reuseCases: 20_000, corpusStride: 1, damagedStores: 80, workloadPowerLossStates: 1_000, linkSwapOpens: 500,
        simulatedOperations: 100_000)

    /// Counts large enough that every rule is exercised (kills land during start-up, inside a
    /// rebuild, in each role; power losses catch periodic durability both flushed and not), small
    /// enough for every run. Two floors are not the tests' choice: more killed readers than LMDB's
    /// 510 reader slots, and more entries than the 65,536 pairs that start a round of the pointer
    /// tail's merge.
    public static let short = TestScale(
        name: "short", writerKills: 12, indexRecoveryKills: 6, mixedKills: 20, killedReaders: 528,
        tailMergeKills: 10, powerLossStates: 60, periodicPowerLossStates: 200, manyEntries: 80_000,
        reuseCases: 5_000, corpusStride: 4, damagedStores: 3, workloadPowerLossStates: 150, linkSwapOpens: 150,
        simulatedOperations: 10_000)

    /// The environment variable `tools/test --all` sets to `1` for the full scale.
    public static let environmentVariable = "CACHE_TESTS_FULL"

    /// The scale of this run: full when `CACHE_TESTS_FULL=1`, short otherwise.
    public static let current: TestScale = {
        let environment = ProcessInfo.processInfo.environment
        var scale = environment[environmentVariable] == "1" ? full : short
        if let states = environment["POWERLOSS_STATES"].flatMap(Int.init) {
            scale.powerLossStates = states
            scale.periodicPowerLossStates = states
            scale.workloadPowerLossStates = states
        }
        if let operations = environment["SIMULATION_OPERATIONS"].flatMap(Int.init) { scale.simulatedOperations = operations }
        return scale
    }()

    /// Every `corpusStride`-th element of each group `kind` names (all of them in full), in their
    /// order: the sample keeps the first of every group, so every format (or folder) stays in it.
    public func sample<Element>(_ items: [Element], by kind: (Element) -> String) -> [Element] {
        var seen: [String: Int] = [:]
        return items.filter { item in
            let index = seen[kind(item), default: 0]
            seen[kind(item)] = index + 1
            return index % corpusStride == 0
        }
    }

    /// `"short scale"` or `"full scale"`, for the line each long test prints.
    public var description: String { "\(name) scale" }
}
