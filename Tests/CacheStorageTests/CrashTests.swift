import Foundation
import TestSupport
import Testing

import CacheStorage

/// Real processes killed with SIGKILL at random moments. After every kill the store is reopened
/// with `.throwError`, so damage fails the test instead of being quarantined into an empty store
/// that would check clean.
@Suite("Crash safety", .serialized)
struct CrashTests {
    static let strict: [String: String] = ["STORAGE_WORKER_STRICT": "1"]

    static func strictConfiguration() -> StoreConfiguration {
        var configuration = StoreConfiguration()
        configuration.recovery = .throwError
        configuration.byteLimit = 1 << 40
        return configuration
    }

    /// Every entry holds exactly the bytes of the generation its record names, the two stores
    /// agree, and nothing was moved to quarantine. Returns the entries, by key, with their generation.
    @discardableResult
    static func checkInvariants(_ folder: URL, cycle: Int, allowingQuarantinedIndex: Bool = false) async throws -> [String: UInt64] {
        let store = try PersistentStore(directory: folder, configuration: strictConfiguration())
        defer { store.close() }
        var generations: [String: UInt64] = [:]
        for metadata in try store.entries() {
            let hit = try #require(try store.get(metadata.key), "cycle \(cycle): listed entry \(metadata.key) unreadable")
            #expect(
                TestPayload.matches(hit.data, key: metadata.key, etag: hit.metadata.attributes.etag),
                "cycle \(cycle): wrong bytes for \(metadata.key) (\(hit.metadata.attributes.etag ?? "-"))")
            generations[metadata.key] = TestPayload.generation(fromETag: hit.metadata.attributes.etag) ?? 0
        }
        let report = try await store.verify()
        #expect(report.isClean, "cycle \(cycle): \(report.problems)")
        let quarantined = TestStores.quarantined(in: folder)
        if allowingQuarantinedIndex {
            // Folders named for each recovery, holding index files only: never the blob store.
            #expect(!quarantined.blobs, "cycle \(cycle): the blob store was quarantined")
        } else {
            #expect(!quarantined.anything, "cycle \(cycle): the store was quarantined")
        }
        return generations
    }

    /// The `ack GEN KEY…` lines a writer printed: for each key, the latest generation acknowledged.
    static func acknowledged(_ output: String) -> [String: UInt64] {
        var latest: [String: UInt64] = [:]
        for line in output.split(separator: "\n") where line.hasPrefix("ack ") {
            let fields = line.split(separator: " ")
            guard fields.count >= 3, let generation = UInt64(fields[1]) else { continue }
            for key in fields.dropFirst(2) { latest[String(key)] = max(latest[String(key)] ?? 0, generation) }
        }
        return latest
    }

    @Test("a writer killed at random moments (TestScale.writerKills times) loses no acknowledged put and leaves nothing torn or mixed")
    func killedWriter() async throws {
        let folder = TemporaryDirectory("crash")
        var random = SystemRandomNumberGenerator()
        var acknowledged: [String: UInt64] = [:]
        var puts = 0
        var cyclesAfterWrites = 0
        let kills = TestScale.current.writerKills
        for cycle in 0..<kills {
            let worker = try await WorkerProcess(
                role: "writer", directory: folder.url, seed: UInt64(cycle + 1),
                environment: Self.strict.merging(["STORAGE_WORKER_NO_LIMIT": "1"]) { $1 })
            // Every sixth kill lands during start-up or recovery, before the store reports ready.
            if cycle % 6 != 5 { #expect(await worker.waitUntilReady(), "cycle \(cycle): worker did not start") }
            // Two kills in three wait for the worker's first batches however slowly a loaded
            // machine or a slow disk lets it write, so the kills land among acknowledged puts; the
            // third keeps its moment at random from start-up on.
            if cycle % 3 != 0 {
                let progressDeadline = ContinuousClock.now + .seconds(30)
                while worker.acknowledgedBatches < 2,
                    ContinuousClock.now < progressDeadline
                {
                    try await Task.sleep(for: .milliseconds(10))
                }
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 10...200, using: &random)))
            await worker.kill()
            let acks = Self.acknowledged(worker.output)
            puts += worker.acknowledgedBatches
            acknowledged.merge(acks) { max($0, $1) }
            let present = try await Self.checkInvariants(folder.url, cycle: cycle)
            // Nothing is evicted (no limit): every acknowledged put is there, at its generation or a later one.
            for (key, generation) in acknowledged {
                let found = try #require(present[key], "cycle \(cycle): acknowledged \(key) (g\(generation)) is gone")
                #expect(found >= generation, "cycle \(cycle): \(key) went back from g\(generation) to g\(found)")
            }
            if !acknowledged.isEmpty {
                cyclesAfterWrites += 1
                #expect(!present.isEmpty, "cycle \(cycle): the store is empty after acknowledged writes")
            }
        }
        print("killed writer (\(TestScale.current)): \(kills) kills, \(puts) acknowledged batches, \(acknowledged.count) keys checked after every kill")
        // More than 100 batches in 80 kills.
        #expect(puts > kills * 5 / 4, "the writers acknowledged too little for the test to prove anything")
        // The writers acknowledged a put within the first ten kills.
        #expect(cyclesAfterWrites > kills - 10)
    }

    @Test("killed while rebuilding a damaged index (TestScale.indexRecoveryKills times): the next open finishes the job and loses nothing, kills seen to land inside the rebuild")
    func killedDuringIndexRecovery() async throws {
        let folder = TemporaryDirectory("crash-recovery")
        // Thousands of small entries, so the rebuild takes long enough to be killed inside.
        let environment = ["STORAGE_WORKER_NO_LIMIT": "1", "STORAGE_WORKER_SMALL": "1", "STORAGE_WORKER_KEYS": "20000"]
        // A fixed number of batches, not a time: how much a loaded machine writes in a few seconds
        // varies widely.
        let seed = try await WorkerProcess(
            role: "writer", directory: folder.url, seed: 3,
            environment: environment.merging(["STORAGE_WORKER_BATCHES": "600"]) { $1 })
        let seeded = await seed.finish()
        #expect(seeded.status == 0, "\(seeded.errors)")
        let acknowledged = Self.acknowledged(seeded.output)
        #expect(acknowledged.count > 2_000, "the seed wrote too little for a rebuild to take time")
        var random = SystemRandomNumberGenerator()
        var insideRebuild = 0
        let kills = TestScale.current.indexRecoveryKills
        for cycle in 0..<kills {
            try Self.damageIndex(in: folder.url)
            // Every other worker stops for good once it logs the rebuild's start, so half the kills
            // land inside the rebuild however fast the machine is; the others land at a random
            // moment after that, inside or after it.
            let held = cycle % 2 == 0
            var workerEnvironment = environment.merging(["STORAGE_WORKER_LOG": "1"]) { $1 }
            if held { workerEnvironment["STORAGE_WORKER_HOLD"] = "rebuilding it from the blob store" }
            let worker = try await WorkerProcess(
                role: "reader", directory: folder.url, seed: UInt64(cycle), environment: workerEnvironment)
            // The store logs the damage and the rebuild as it starts it; the worker prints `ready`
            // once opening (and so the rebuild) is done.
            let deadline = ContinuousClock.now + .seconds(30)
            let started = held ? "holding" : "rebuilding it from the blob store"
            while !worker.output.contains(started), worker.isRunning, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(1))
            }
            #expect(worker.output.contains(started), "cycle \(cycle): no recovery began: \(worker.output)")
            if !held { try await Task.sleep(for: .milliseconds(Int.random(in: 0...30, using: &random))) }
            let wasReady = worker.output.split(separator: "\n").contains("ready")
            await worker.kill()
            if !wasReady { insideRebuild += 1 }
            // The index left behind is incomplete, not damaged: a strict open catches it up.
            let present = try await Self.checkInvariants(folder.url, cycle: cycle, allowingQuarantinedIndex: true)
            #expect(present.count == acknowledged.count, "cycle \(cycle): \(present.count) entries, \(acknowledged.count) acknowledged")
            for (key, generation) in acknowledged where (present[key] ?? 0) < generation {
                Issue.record("cycle \(cycle): acknowledged \(key) (g\(generation)) is gone or older")
                break
            }
        }
        print("killed during index recovery (\(TestScale.current)): \(kills) kills, \(insideRebuild) before the store was ready, \(acknowledged.count) entries checked after each")
        // The held half at least; the invariants above hold for every kill wherever it landed.
        #expect(insideRebuild >= (kills + 1) / 2, "a held worker was ready: the hold did not stop the rebuild")
    }

    /// Overwrites the start of the index (SQLite's header) and removes its journal: opening finds it damaged.
    static func damageIndex(in folder: URL) throws {
        let index = folder.appendingPathComponent("index.sqlite")
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: index.path + suffix) }
        let handle = try FileHandle(forWritingTo: index)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 100))
        try handle.close()
    }

    /// The roles a mixed kill cycle picks from: storage workers and cachectl commands.
    static let killedRoles = ["writer", "reader", "evictor", "writer", "purge", "verify-repair"]

    @Test("readers, evictors, second writers, purge and verify --repair killed at random (TestScale.mixedKills times) beside a process that keeps the store open")
    func killedMix() async throws {
        let folder = TemporaryDirectory("crash-mix")
        var random = SystemRandomNumberGenerator()
        // Another process keeps the store open (and reads) the whole time; a small map makes the
        // writers grow it, so the others must adopt the new size.
        let environment = ["STORAGE_WORKER_MAP_BYTES": "1048576"]
        let keeper = try await WorkerProcess(role: "reader", directory: folder.url, seed: 99, environment: environment)
        #expect(await keeper.waitUntilReady())
        let seed = try await WorkerProcess(role: "writer", directory: folder.url, seconds: 1, seed: 1, environment: environment)
        #expect(await seed.finish().status == 0)
        var kills: [String: Int] = [:]
        // Entries found and checked after each kill, summed: an evictor or a purge may empty the
        // store in the last cycles (evicting down to a random size, or a tenth of the keys), so
        // the store at the end may hold none; the cycles before it must have had some to check.
        var checked = 0
        let cycles = TestScale.current.mixedKills
        // Every role in turn from a random start, so each is killed in the short form too.
        let firstRole = Int.random(in: 0..<Self.killedRoles.count, using: &random)
        for cycle in 0..<cycles {
            let role = Self.killedRoles[(firstRole + cycle) % Self.killedRoles.count]
            let process: WorkerProcess
            switch role {
            case "purge":
                process = try await WorkerProcess(
                    sibling: "cachectl", arguments: ["purge", "--prefix", "shared/\(cycle % 10)", "--path", folder.url.path])
            case "verify-repair":
                process = try await WorkerProcess(sibling: "cachectl", arguments: ["verify", "--repair", "--path", folder.url.path])
            default:
                process = try await WorkerProcess(
                    role: role, directory: folder.url, seed: UInt64(cycle + 2), environment: environment)
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...120, using: &random)))
            await process.kill()
            kills[role, default: 0] += 1
            #expect(!process.errors.contains("wrong bytes"), "cycle \(cycle) \(role): \(process.errors)")
            checked += try await Self.checkInvariants(folder.url, cycle: cycle).count
            #expect(keeper.isRunning, "cycle \(cycle): the process keeping the store open died")
        }
        await keeper.kill()
        #expect(!keeper.errors.contains("wrong bytes"), "\(keeper.errors)")
        checked += try await Self.checkInvariants(folder.url, cycle: cycles).count
        print("killed mix (\(TestScale.current)): \(kills.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")); \(checked) entries checked")
        #expect(checked >= cycles, "the cycles found \(checked) entries to check in all")
    }

    @Test("readers killed mid-read beside a writer (TestScale.killedReaders at least) leave more slots than LMDB's reader table holds (510), and the next open clears them: the table never fills and no dead reader pins a snapshot")
    func killedReaders() async throws {
        let folder = TemporaryDirectory("crash-readers")
        let blobs = folder.url.appendingPathComponent("blobs")
        let seed = try await WorkerProcess(role: "writer", directory: folder.url, seconds: 1, seed: 5)
        #expect(await seed.finish().status == 0)
        // A writer overwrites and evicts (8 MiB limit) the whole time, pausing between batches so
        // the readers get the processor. A dead reader's slot pins the snapshot it read: were the
        // slots never cleared, no page freed after it could be reused, the file would grow with
        // every write, and the table would fill.
        let writer = try await WorkerProcess(
            role: "writer", directory: folder.url, seed: 6, environment: ["STORAGE_WORKER_PAUSE_MS": "20"])
        #expect(await writer.waitUntilReady())
        var killed = 0
        var deadSlots = 0
        var pinning = 0
        var largest = 0
        // Twelve readers at a time, each killed a few milliseconds after it is ready (a reader
        // waiting for its batch would only spend the processor on reads). After each batch, the
        // slots its readers left are counted before the next batch's opens clear them; the kills
        // go on until more slots were left than the table holds.
        let deadline = ContinuousClock.now + .seconds(600)
        while writer.isRunning, ContinuousClock.now < deadline,
            killed < TestScale.current.killedReaders || deadSlots <= ReaderTable.capacity
        {
            let first = killed
            killed += try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<12 {
                    group.addTask {
                        let reader = try await WorkerProcess(
                            role: "reader", directory: folder.url, seed: UInt64(first + index))
                        _ = await reader.waitUntilReady()
                        try await Task.sleep(for: .milliseconds(Int.random(in: 5...30)))
                        await reader.kill()
                        return 1
                    }
                }
                return try await group.reduce(0, +)
            }
            let left = try ReaderTable.read(blobs).ofDeadProcesses
            deadSlots += left.count
            pinning += left.filter { $0.snapshot != nil }.count
            let size = try? FileManager.default.attributesOfItem(atPath: blobs.appendingPathComponent("data.mdb").path)[.size]
            largest = max(largest, size as? Int ?? 0)
        }
        #expect(killed >= TestScale.current.killedReaders, "only \(killed) readers were killed in the time allowed")
        #expect(deadSlots > ReaderTable.capacity, "the killed readers left \(deadSlots) slots, no more than the table holds")
        #expect(writer.isRunning, "the writer died: \(writer.errors)")
        // A new reader still gets a slot and reads, and its open clears the slots the last batch left.
        let after = try await WorkerProcess(role: "reader", directory: folder.url, seconds: 0.5, seed: 1)
        let result = await after.finish()
        #expect(result.status == 0, "\(result.output) \(result.errors)")
        let remaining = try ReaderTable.read(blobs).ofDeadProcesses
        #expect(remaining.isEmpty, "slots of dead readers after an open: \(remaining)")
        await writer.kill()
        #expect(!writer.errors.contains("writer: "), "the writer failed beside the killed readers: \(writer.errors)")
        let acknowledged = writer.acknowledgedBatches
        #expect(acknowledged > 150, "the writer wrote too little for the test to prove anything")
        // The file's size is printed, not bounded: live readers pin pages for as long as each
        // read transaction lasts, and on a busy machine that follows the load.
        print("killed readers (\(TestScale.current)): \(killed) left \(deadSlots) slots (\(pinning) holding a snapshot), \(remaining.count) left after the next open, beside a writer that acknowledged \(acknowledged) batches; data file at most \(largest) bytes")
        try await Self.checkInvariants(folder.url, cycle: 0)
    }
}

/// Writer, reader and evictor processes on one directory at once.
@Suite("Many processes", .serialized)
struct MultiProcessTests {
    @Test("two writers growing a small map, a reader and an evictor for 6 s: no errors, invariants hold")
    func concurrentProcesses() async throws {
        let folder = TemporaryDirectory("multi")
        let roles = ["writer", "writer", "reader", "evictor"]
        var workers: [WorkerProcess] = []
        for (index, role) in roles.enumerated() {
            workers.append(
                try await WorkerProcess(
                    role: role, directory: folder.url, seconds: 6, seed: UInt64(index + 1),
                    environment: ["STORAGE_WORKER_MAP_BYTES": "1048576"]))
        }
        for (role, worker) in zip(roles, workers) {
            let result = await worker.finish()
            #expect(result.status == 0, "\(role) failed: \(result.output) \(result.errors)")
            #expect(result.output.contains("\(role) ok="), "\(role) printed no summary")
            #expect(!result.output.contains(" ok=0 "), "\(role) did no work")
            if role == "reader" {
                #expect(!result.output.contains(" hits=0 "), "the reader never found an entry: it checked nothing")
            }
        }
        let store = try PersistentStore(directory: folder.url)
        #expect(try store.statistics().mapBytes > 1 << 20, "the writers never grew the map")
        store.close()
        try await CrashTests.checkInvariants(folder.url, cycle: 0)
    }
}
