#if os(Linux)
import Foundation
import Logging
import TestSupport
import Testing

import CacheStorage

/// Simulated power loss, as SQLite's crash tests do it: a writer runs with every change it makes
/// to the store's files recorded (Tests/Fixtures/PowerLoss/write-recorder.c, preloaded), then the
/// disk states a power loss could have left at random moments are built from the recording
/// (``PowerLossSimulation``: synced writes kept, each later page write kept or lost) and opened
/// as the next boot would open them. ``TestScale`` says how many states per durability mode
/// (`POWERLOSS_STATES` overrides it); `POWERLOSS_SEED` overrides the seed; `tools/soak` runs more.
@Suite("Simulated power loss", .serialized)
struct PowerLossTests {
    /// Periodic durability keeps a state whole only when it was caught just after a flush, a few
    /// states in a hundred: it gets more of them, so the check that some were reached holds.
    static func statesPerMode(_ mode: String) -> Int {
        mode.hasPrefix("periodic") ? TestScale.current.periodicPowerLossStates : TestScale.current.powerLossStates
    }
    static let seed = ProcessInfo.processInfo.environment["POWERLOSS_SEED"].flatMap(UInt64.init) ?? 20_261_124
    static let batches = 120

    /// What opening one state did.
    enum Outcome: String, CaseIterable {
        /// Opened with every put that returned (periodic: once `flush.state` said it was synced).
        case intact = "intact"
        /// The index was damaged and rebuilt from the blob store (nothing lost).
        case indexRebuilt = "index rebuilt"
        /// Moved aside because `flush.state` did not say the last writes were synced (periodic).
        case movedAsideUnflushed = "moved aside: unflushed"
        /// Moved aside before any put had been promised.
        case movedAsideEmpty = "moved aside: nothing promised yet"
    }

    @Test(
        "every disk state a power loss can leave opens without crashing, serves only the bytes its records vouch for, and keeps what the durability mode promises",
        arguments: ["eachCommit", "full", "periodic-ms:20"])
    func powerLoss(mode: String) async throws {
        let folder = TemporaryDirectory("powerloss")
        let library = try await WriteRecorder.build(into: folder.url)
        let store = folder.url.appendingPathComponent("store")
        let log = folder.url.appendingPathComponent("writes.log")
        let run = try await WriteRecorder.record(
            role: "writer", store: store, log: log, library: library, seed: 11,
            environment: [
                "STORAGE_WORKER_NO_LIMIT": "1", "STORAGE_WORKER_SMALL": "1", "STORAGE_WORKER_DURABILITY": mode,
                "STORAGE_WORKER_BATCHES": String(Self.batches),
                // eachCommit: puts from four tasks at once, so puts share commits and commits queue
                // behind each other while others are being synced.
                "STORAGE_WORKER_LANES": mode == "eachCommit" ? "4" : "1",
                // Periodic: a pause longer than the flush interval, so states fall between a flush
                // and the next commit (trusted) as well as between a commit and its flush (not).
                "STORAGE_WORKER_PAUSE_MS": mode.hasPrefix("periodic") ? "30" : "0",
            ])
        try #require(run.status == 0, "the recorded writer failed: \(run.errors)")
        let writes = try WriteLog(contentsOf: log)
        let simulation = PowerLossSimulation(log: writes, root: store)
        let differences = try WriteRecorder.differences(of: simulation, from: store)
        #expect(differences.isEmpty, "the recording replayed differs from the files: \(differences.prefix(5))")
        let acks = writes.operations.filter { if case let .mark(text) = $0 { text.hasPrefix("ack ") } else { false } }
        let syncs = writes.operations.filter { if case .sync = $0 { true } else { false } }
        #expect(acks.count == Self.batches, "the recording holds every acknowledgement")
        #expect(syncs.count > 0, "the recording holds the store's syncs")
        // The data file's name is made durable before anything is acknowledged: LMDB syncs only the
        // file, and without the folder's sync a power loss may keep every commit and lose the file.
        let created = writes.operations.firstIndex { if case let .create(path) = $0 { path.hasSuffix("/blobs/data.mdb") } else { false } }
        let firstAck = writes.operations.firstIndex { if case let .mark(text) = $0 { text.hasPrefix("ack ") } else { false } }
        let folderSynced = writes.operations.indices.contains { index in
            guard case let .sync(path) = writes.operations[index] else { return false }
            return path.hasSuffix("/blobs") && index > (created ?? .max) && index < (firstAck ?? .max)
        }
        #expect(created != nil && folderSynced, "blobs/ is synced after LMDB creates data.mdb, before the first acknowledgement")

        // States are opened in memory when the machine has a tmpfs there: the next boot's syncs
        // then cost nothing, and a state is a few megabytes written and removed.
        let memory = URL(fileURLWithPath: "/dev/shm/cachestorage-powerloss-\(UUID().uuidString)")
        let scratch = (try? FileManager.default.createDirectory(at: memory, withIntermediateDirectories: false)) != nil
            ? memory : folder.url
        defer { try? FileManager.default.removeItem(at: memory) }
        var outcomes: [Outcome: Int] = [:]
        var failures = 0
        let statesPerMode = Self.statesPerMode(mode)
        try await simulation.forEachState(count: statesPerMode, seed: Self.seed) { state in
            let problems: [String]
            let outcome: Outcome?
            (outcome, problems) = try await Self.open(state, mode: mode, in: scratch)
            if let outcome { outcomes[outcome, default: 0] += 1 }
            if !problems.isEmpty {
                failures += 1
                // The first few in full; the count says the rest.
                if failures <= 5 {
                    Issue.record(
                        "\(mode), seed \(Self.seed), state \(state.number) (after \(state.crashPoint) of \(writes.operations.count) operations, \(state.keptFraction) of unsynced sectors kept, lost ones \(state.lostSectors.rawValue)): \(problems.joined(separator: "; "))"
                    )
                }
            }
        }
        let summary = Outcome.allCases.map { "\($0.rawValue) \(outcomes[$0] ?? 0)" }.joined(separator: ", ")
        print(
            "power loss, \(mode) (\(TestScale.current)): \(statesPerMode) states from \(writes.operations.count) recorded operations (\(syncs.count) syncs, \(acks.count) acknowledged batches), seed \(Self.seed): \(summary); failed \(failures)"
        )
        #expect(failures == 0, "\(failures) of \(statesPerMode) states failed (\(mode), seed \(Self.seed))")
        #expect(outcomes.values.reduce(0, +) == statesPerMode - failures)
        // The states must reach the interesting cases, or the test proves little.
        let trusted = outcomes[.intact] ?? 0
        if mode.hasPrefix("periodic") {
            #expect(trusted > statesPerMode / 50, "too few states caught the store flushed")
            #expect((outcomes[.movedAsideUnflushed] ?? 0) > statesPerMode / 4, "too few states caught the store between a commit and its flush")
        } else {
            #expect(trusted > statesPerMode / 2)
            #expect((outcomes[.movedAsideUnflushed] ?? 0) == 0)
        }
    }

    /// Opens `state` as the next boot would; returns what happened and what was wrong.
    static func open(_ state: PowerLossSimulation.State, mode: String, in folder: URL) async throws -> (Outcome?, [String]) {
        let directory = folder.appendingPathComponent("state-\(state.number)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var state = state
        // The next boot has another boot id: the marker's one becomes a stranger's.
        if let marker = state.files["flush.state"] { state.files["flush.state"] = Self.fromEarlierBoot(marker) }
        try state.write(to: directory)
        let marker = state.files["flush.state"].map { String(decoding: $0, as: UTF8.self) }
        let markedFlushed = marker == nil || marker!.hasPrefix("clean ")

        var configuration = StoreConfiguration()
        configuration.byteLimit = 1 << 40
        configuration.durability = mode == "full" ? .full : mode == "eachCommit" ? .eachCommit : .standard
        configuration.logger = Logger(label: "power-loss") { _ in SwiftLogNoOpLogHandler() }
        let store: PersistentStore
        do {
            store = try PersistentStore(directory: directory, configuration: configuration)
        } catch {
            return (nil, ["the next boot cannot open the store: \(error)"])
        }
        defer { store.close() }
        var problems: [String] = []
        var generations: [String: UInt64] = [:]
        do {
            try await Self.read(store, into: &generations, problems: &problems)
        } catch {
            problems.append("reading the store failed: \(error)")
        }

        let movedAside = TestStores.quarantined(in: directory)
        // What each mode promises (StoreConfiguration.swift): `.full` and `.eachCommit`, every put
        // that returned; periodic, everything once flush.state says it was synced (no commit lands
        // under `clean`), and nothing otherwise: such a store is moved aside.
        let acks = state.marks.filter { $0.hasPrefix("ack ") }
        let promised = CrashTests.acknowledged(acks.joined())
        if movedAside.blobs {
            if !markedFlushed && mode.hasPrefix("periodic") { return (.movedAsideUnflushed, problems) }
            if promised.isEmpty { return (.movedAsideEmpty, problems) }
            return (nil, problems + ["the store was moved aside with \(promised.count) promised keys (flush.state: \(marker ?? "none"))"])
        }
        if !markedFlushed && mode.hasPrefix("periodic") {
            problems.append("flush.state from an earlier boot says '\(marker!)' but the store was trusted")
        }
        let missing = promised.filter { key, generation in (generations[key] ?? 0) < generation }
        if !missing.isEmpty {
            problems.append("\(missing.count) promised puts lost, e.g. \(missing.first!.key) generation \(missing.first!.value)")
        }
        return (movedAside.index ? .indexRebuilt : .intact, problems)
    }

    /// Reads every listed entry, checking its bytes against its generation, and verifies the store.
    static func read(_ store: PersistentStore, into generations: inout [String: UInt64], problems: inout [String]) async throws {
        for metadata in try store.entries() {
            guard let hit = try store.get(metadata.key) else {
                problems.append("listed entry \(metadata.key) cannot be read")
                continue
            }
            if !TestPayload.matches(hit.data, key: metadata.key, etag: hit.metadata.attributes.etag) {
                problems.append("wrong bytes for \(metadata.key) (\(hit.metadata.attributes.etag ?? "-"))")
            }
            generations[metadata.key] = TestPayload.generation(fromETag: hit.metadata.attributes.etag) ?? 0
        }
        let report = try await store.verify()
        if !report.isClean { problems.append("verify: \(report.problems)") }
    }

    /// `contents` of a `flush.state` with this boot's id replaced by another of the same length.
    static func fromEarlierBoot(_ contents: [UInt8]) -> [UInt8] {
        let text = String(decoding: contents, as: UTF8.self)
        guard let boot = Platform.bootIdentifier() else { return contents }
        let stranger = String(repeating: "0", count: boot.count)
        return Array(text.replacingOccurrences(of: boot, with: stranger).utf8)
    }
}
#endif
