#if os(Linux)
import CacheStorage
import Foundation
import Logging
import TestSupport
import Testing

/// Simulated power loss across every operation: recorded `storage-worker serve` processes run
/// scripts of the simulation's operations (puts, batches, derived puts and their sources' changes,
/// updates, removals, evictions, compaction, the pointer tail merged every few puts), one process
/// alone or two at once on one store, recording into one log. The recorder is checked first: the
/// whole log replayed must give the files the processes left, byte for byte. Then every disk state
/// a power loss could leave (``PowerLossSimulation``: sectors torn, lost ones read back as they
/// were, as zeros or as garbage) is opened as the next boot would: it opens, every key holds a
/// value its recorded history allows (what returned operations left, or what one in flight would;
/// see ``RecordedHistory``) with exactly that value's bytes, and `verify` is clean.
@Suite("Simulated power loss across every operation", .serialized)
struct PowerLossWorkloadTests {
    enum Workload: String, CaseIterable, CustomTestStringConvertible {
        /// One process, `.eachCommit`, compacting now and then.
        case oneProcess = "one process, eachCommit"
        /// Two processes on one store, `.full` (compaction refused while both have it open).
        case twoProcesses = "two processes, full"

        var testDescription: String { rawValue }
        var processes: Int { self == .oneProcess ? 1 : 2 }
        var durability: String { self == .oneProcess ? "eachCommit" : "full" }
    }

    static let seed = ProcessInfo.processInfo.environment["POWERLOSS_SEED"].flatMap(UInt64.init) ?? 20_261_128
    /// Operations in each process's script.
    static let operationsPerProcess = 240

    @Test("every state a power loss leaves holds only what the recorded history allows", arguments: Workload.allCases)
    func workload(_ workload: Workload) async throws {
        let folder = TemporaryDirectory("powerloss-workload")
        defer { withExtendedLifetime(folder) {} }
        let library = try await WriteRecorder.build(into: folder.url)
        var store = folder.url.appendingPathComponent("store")
        var log = folder.url.appendingPathComponent("writes.log")
        var keys: [String] = []
        for process in 0..<workload.processes {
            let (plain, derived) = SimulationGenerator.keys(prefix: process == 0 ? "" : "q")
            keys += plain + derived
        }
        // POWERLOSS_REPLAY=FOLDER: the states of a recording a failure kept, instead of a new one.
        let replay = ProcessInfo.processInfo.environment["POWERLOSS_REPLAY"].map { URL(fileURLWithPath: $0) }
        if let replay {
            log = replay.appendingPathComponent("writes.log")
            store = URL(fileURLWithPath: try String(contentsOf: replay.appendingPathComponent("root"), encoding: .utf8))
        } else {
            try store.path.write(to: folder.url.appendingPathComponent("root"), atomically: true, encoding: .utf8)
            try await Self.record(workload, store: store, log: log, library: library, in: folder.url)
        }
        let writes = try WriteLog(contentsOf: log)
        let simulation = PowerLossSimulation(log: writes, root: store)
        let differences = replay == nil ? try WriteRecorder.differences(of: simulation, from: store) : []
        #expect(differences.isEmpty, "the recording replayed differs from the files: \(differences.prefix(5))")

        let memory = URL(fileURLWithPath: "/dev/shm/cachestorage-powerloss-\(UUID().uuidString)")
        let scratch = (try? FileManager.default.createDirectory(at: memory, withIntermediateDirectories: false)) != nil
            ? memory : folder.url
        defer { try? FileManager.default.removeItem(at: memory) }
        let states = TestScale.current.workloadPowerLossStates
        var failures = 0
        var outcomes: [String: Int] = [:]
        // States come in the order of their crash points: the history reads each mark once.
        var history = RecordedHistory(keys: keys)
        var marksRead = 0
        var checksums = PayloadChecksums()
        try await simulation.forEachState(count: states, seed: Self.seed) { state in
            var unreadable: [String] = []
            for mark in state.marks[marksRead...] where !history.read(mark) { unreadable.append(mark) }
            marksRead = state.marks.count
            var (outcome, problems) = try await Self.open(state, history: history, checksums: &checksums, in: scratch)
            problems += unreadable.map { "unreadable mark: \($0)" }
            outcomes[outcome, default: 0] += 1
            guard !problems.isEmpty else { return }
            failures += 1
            if failures <= 5 {
                Issue.record(
                    "\(workload.rawValue), seed \(Self.seed), state \(state.number) (after \(state.crashPoint) of \(writes.operations.count) operations, \(state.keptFraction) of unsynced sectors kept, lost ones \(state.lostSectors.rawValue)): \(problems.prefix(4).joined(separator: "; "))"
                )
            }
        }
        let marks = writes.operations.filter { if case .mark = $0 { true } else { false } }.count
        print(
            "power loss, \(workload.rawValue) (\(TestScale.current)): \(states) states from \(writes.operations.count) recorded operations (\(marks) marks) of \(workload.processes * Self.operationsPerProcess) store operations, seed \(Self.seed): \(outcomes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")); failed \(failures)"
        )
        var kept = ""
        if failures > 0 {
            // The states depend on how the processes interleaved: the recording is what reproduces them.
            let keep = FileManager.default.temporaryDirectory.appendingPathComponent("powerloss-failure-\(UUID().uuidString)")
            try? FileManager.default.copyItem(at: folder.url, to: keep)
            kept = "; recording and scripts kept in \(keep.path)"
        }
        #expect(failures == 0, "\(failures) of \(states) states failed (\(workload.rawValue), seed \(Self.seed))\(kept)")
        #expect((outcomes["intact"] ?? 0) > states / 2, "too few states opened with their entries")
    }

    /// Runs the workload's processes under the recorder, each with a script of its own.
    static func record(_ workload: Workload, store: URL, log: URL, library: URL, in folder: URL) async throws {
        var workers: [WorkerProcess] = []
        for process in 0..<workload.processes {
            let prefix = process == 0 ? "" : "q"
            let script = folder.appendingPathComponent("script-\(process)")
            try Self.script(seed: Self.seed &+ UInt64(process), prefix: prefix, firstGeneration: UInt32(process) << 24)
                .write(to: script, atomically: true, encoding: .utf8)
            workers.append(
                try await WriteRecorder.start(
                    role: "serve", store: store, log: log, library: library, seed: 1,
                    environment: [
                        "STORAGE_WORKER_SCRIPT": script.path, "STORAGE_WORKER_NAME": "p\(process)",
                        "STORAGE_WORKER_NO_LIMIT": "1", "STORAGE_WORKER_DURABILITY": workload.durability,
                        "STORAGE_WORKER_MERGE": "8,3", "STORAGE_WORKER_STRICT": "1",
                    ]))
        }
        for worker in workers {
            let (status, output, errors) = await worker.finish()
            try #require(status == 0, "a recorded process failed: \(errors)")
            let failed = output.split(separator: "\n").filter { $0.hasPrefix("done ") && $0.contains(" failed ") }
            #expect(failed.isEmpty, "recorded operations failed: \(failed.prefix(3))")
        }
    }

    /// A process's script: the simulation's operations, drawn against a model that follows them.
    static func script(seed: UInt64, prefix: String, firstGeneration: UInt32) -> String {
        var generator = SimulationGenerator(seed: seed, prefix: prefix, firstGeneration: firstGeneration)
        var model = SimulationModel()
        var lines: [String] = []
        for _ in 0..<operationsPerProcess {
            let operation = generator.nextInScript(model: model)
            _ = model.apply(operation)
            lines.append(operation.line)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Opens `state` as the next boot would; returns what happened and what was wrong.
    static func open(
        _ state: PowerLossSimulation.State, history: RecordedHistory, checksums: inout PayloadChecksums, in folder: URL
    ) async throws -> (String, [String]) {
        let directory = folder.appendingPathComponent("state-\(state.number)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try state.write(to: directory)
        var problems: [String] = []
        let keys = history.keys

        var configuration = StoreConfiguration()
        configuration.byteLimit = 1 << 40
        configuration.durability = .eachCommit
        configuration.logger = Logger(label: "power-loss") { _ in SwiftLogNoOpLogHandler() }
        let store: PersistentStore
        do {
            store = try PersistentStore(directory: directory, configuration: configuration)
        } catch {
            return ("not opened", problems + ["the next boot cannot open the store: \(error)"])
        }
        defer { store.close() }
        for key in keys {
            let allowed = history.allowed(key)
            let value: RecordedHistory.Value?
            do {
                value = try Self.value(of: key, in: store, checksums: &checksums, problems: &problems)
            } catch {
                problems.append("reading \(key) failed: \(error)")
                continue
            }
            if !allowed.contains(value) {
                problems.append("\(key) holds \(value.map(\.description) ?? "nothing"); its history allows \(allowed.map { $0?.description ?? "nothing" }.sorted())")
            }
        }
        do {
            let listed = try store.entries().map(\.key).filter { !keys.contains($0) }
            if !listed.isEmpty { problems.append("the store lists keys nobody put: \(listed.prefix(3))") }
            let report = try await store.verify()
            if !report.isClean { problems.append("verify: \(report.problems.prefix(3))") }
        } catch {
            problems.append("listing or verifying failed: \(error)")
        }
        let movedAside = TestStores.quarantined(in: directory)
        return (movedAside.blobs ? "moved aside" : movedAside.index ? "index rebuilt" : "intact", problems)
    }

    /// What `key` holds, checking that its bytes are exactly those of the generation it names.
    static func value(
        of key: String, in store: PersistentStore, checksums: inout PayloadChecksums, problems: inout [String]
    ) throws -> RecordedHistory.Value? {
        guard let entry = try store.get(key) else { return nil }
        let attributes = entry.metadata.attributes
        guard let etag = attributes.etag, etag.hasPrefix("g"), let generation = UInt32(etag.dropFirst()) else {
            problems.append("\(key) has no generation in its entity tag (\(attributes.etag ?? "none"))")
            return nil
        }
        if EntrySource(key: key, bytes: entry.data).checksum != checksums.checksum(key: key, generation: generation, length: entry.data.count) {
            problems.append("\(key) serves bytes that are not generation \(generation)'s")
        }
        let tag = attributes.contentType.flatMap { $0.hasPrefix("image/x-tag") ? UInt32($0.dropFirst(11)) : nil }
        return RecordedHistory.Value(generation: generation, length: entry.data.count, tag: tag, source: entry.metadata.source)
    }

    /// The checksums of the payloads states hold, each computed once.
    struct PayloadChecksums {
        private var known: [SimulatedPut: UInt64] = [:]

        mutating func checksum(key: String, generation: UInt32, length: Int) -> UInt64 {
            let put = SimulatedPut(key: key, generation: generation, length: length)
            if let checksum = known[put] { return checksum }
            let checksum = SimulatedPayload.source(key: key, generation: generation, length: length).checksum
            known[put] = checksum
            return checksum
        }
    }
}
#endif
