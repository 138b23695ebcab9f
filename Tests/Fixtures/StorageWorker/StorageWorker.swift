@testable import CacheStorage
import Foundation
import Logging
import TestSupport

/// A child process for the crash and multi-process tests: `storage-worker ROLE DIR SECONDS SEED`.
///
/// Roles: `writer` puts batches of checkable entries (forever when SECONDS is 0, until killed);
/// `reader` reads random keys and checks every hit byte for byte; `evictor` removes entries and
/// evicts to shrinking targets; `check` (SECONDS ignored) checks every entry's bytes and runs
/// `verify`; `dump` (SECONDS ignored) reads each key of the file STORAGE_WORKER_KEYS_FILE (one a
/// line) and writes each hit's bytes to STORAGE_WORKER_DUMP/N (N the key's line, from 0), then
/// prints `dump hits=H entries=E listed=L` from the store's statistics and listing, and writes
/// that line to STORAGE_WORKER_DUMP/summary; `serve` (SECONDS ignored) does the simulation's
/// operations it reads on standard input (see `SimulatedOperation.line`), answering each with
/// `= OUTCOME`, and closes the store and exits at `close` or at the input's end. Each prints one summary line `ROLE ok=N errors=M` (a reader adds `hits=H`) and exits 1 on any error. Keys come
/// from a shared space so the roles collide on purpose.
@main
struct StorageWorker {
    /// How many keys the roles share: 400, or STORAGE_WORKER_KEYS.
    static let keySpace = ProcessInfo.processInfo.environment["STORAGE_WORKER_KEYS"].flatMap(Int.init) ?? 400

    static func main() async {
        let arguments = CommandLine.arguments
        guard arguments.count == 5, let seconds = Double(arguments[3]), let seed = UInt64(arguments[4]) else {
            FileHandle.standardError.write(Data("usage: storage-worker writer|reader|evictor DIR SECONDS SEED\n".utf8))
            exit(2)
        }
        let role = arguments[1]
        let environment = ProcessInfo.processInfo.environment
        var configuration = StoreConfiguration()
        // STORAGE_WORKER_NO_LIMIT=1: nothing is evicted, so every acknowledged put must survive.
        configuration.byteLimit = environment["STORAGE_WORKER_NO_LIMIT"] == "1" ? 1 << 40 : 8 * 1024 * 1024
        // STORAGE_WORKER_LIMITS=BYTES,ENTRIES: the limits of the test's own store (the simulation).
        if let limits = environment["STORAGE_WORKER_LIMITS"]?.split(separator: ",").compactMap({ Int($0) }), limits.count == 2 {
            configuration.byteLimit = limits[0]
            configuration.entryLimit = limits[1]
        }
        // STORAGE_WORKER_BYTE_LIMIT_ONLY=1: the volume's free space does not bound the store, so a
        // writer fills a full disk until it is refused (the free-space rule would evict instead).
        if environment["STORAGE_WORKER_BYTE_LIMIT_ONLY"] == "1" { configuration.diskSpace = .byteLimitOnly }
        // STORAGE_WORKER_MAP_BYTES=N: a small first map, so writers grow it while others read.
        if let mapBytes = environment["STORAGE_WORKER_MAP_BYTES"].flatMap(Int.init) { configuration.initialMapBytes = mapBytes }
        // STORAGE_WORKER_STRICT=1: damage is an error, never a silent rebuild.
        if environment["STORAGE_WORKER_STRICT"] == "1" { configuration.recovery = .throwError }
        // STORAGE_WORKER_READ_ONLY=1: opened read-only (a `check` of what a reader sees).
        if environment["STORAGE_WORKER_READ_ONLY"] == "1" { configuration.access = .readOnly }
        // STORAGE_WORKER_LOG=1: the store's log on standard output, so a test sees recovery begin.
        if environment["STORAGE_WORKER_LOG"] == "1" {
            // STORAGE_WORKER_HOLD=TEXT: once the store logs a message containing TEXT, the worker
            // stops there for good, so a test's kill lands exactly at that point.
            let hold = environment["STORAGE_WORKER_HOLD"]
            configuration.logger = Logger(label: "storage-worker") {
                HoldingLogHandler(inner: StreamLogHandler.standardOutput(label: $0), hold: hold)
            }
        }
        // STORAGE_WORKER_DURABILITY=eachCommit|full|periodic-ms:N (the power-loss recordings).
        if let durability = environment["STORAGE_WORKER_DURABILITY"].flatMap(Self.durability) {
            configuration.durability = durability
        }
        // STORAGE_WORKER_MERGE=THRESHOLD,SLICE: the pointer tail merged in rounds of THRESHOLD
        // pairs, SLICE a transaction (the crash tests kill writers inside rounds).
        if let merge = environment["STORAGE_WORKER_MERGE"]?.split(separator: ",").compactMap({ Int($0) }), merge.count == 2 {
            configuration.pointerMergeThreshold = merge[0]
            configuration.pointerMergeSlice = merge[1]
        }
        // STORAGE_WORKER_BATCHES=N: a writer stops after N batches; STORAGE_WORKER_PAUSE_MS=N
        // sleeps between them, so periodic flushes fall between commits.
        let batchLimit = environment["STORAGE_WORKER_BATCHES"].flatMap(Int.init) ?? Int.max
        // STORAGE_WORKER_KILL_AFTER=BATCHES,MICROSECONDS: once a writer has acknowledged BATCHES
        // batches it kills itself (SIGKILL) within MICROSECONDS, writing on meanwhile, so the kill
        // lands after exactly that much work however slowly the test's own process runs.
        let killAfter = environment["STORAGE_WORKER_KILL_AFTER"]?.split(separator: ",").compactMap({ Int($0) })
        let pause = environment["STORAGE_WORKER_PAUSE_MS"].flatMap(Int.init) ?? 0
        var generation = seed << 32
        let deadline = seconds > 0 ? Date().addingTimeInterval(seconds) : Date.distantFuture
        var random = SeededRandom(seed: seed)
        var ok = 0
        var errors = 0
        var hits = 0
        do {
            let store = try PersistentStore(directory: URL(fileURLWithPath: arguments[2]), configuration: configuration)
            FileHandle.standardOutput.write(Data("ready\n".utf8))
            if role == "dump" {
                let line = try await dump(store, environment)
                store.close()
                FileHandle.standardOutput.write(Data("\(line)\n".utf8))
                exit(0)
            }
            if role == "serve" {
                await serve(store)
                exit(0)
            }
            if role == "check" {
                (ok, errors) = try await check(store)
                store.close()
                FileHandle.standardOutput.write(Data("check ok=\(ok) errors=\(errors)\n".utf8))
                exit(errors == 0 ? 0 : 1)
            }
            // STORAGE_WORKER_LANES=N: a writer puts from N tasks at once, each on its own keys
            // (so each key's acknowledgements stay ordered), to keep the writer's queue non-empty.
            let lanes = environment["STORAGE_WORKER_LANES"].flatMap(Int.init) ?? 1
            if role == "writer" && lanes > 1 {
                (ok, errors) = await writeInLanes(store, lanes: lanes, batches: batchLimit, until: deadline, seed: seed)
            }
            while lanes == 1 && Date() < deadline && ok < batchLimit {
                if pause > 0 { try? await Task.sleep(for: .milliseconds(pause)) }
                do {
                    switch role {
                    case "writer": try await write(store, &random, generation: &generation)
                    case "reader":
                        let (hit, wrong) = try read(store, &random)
                        if hit { hits += 1 }
                        errors += wrong
                    case "evictor": try await evict(store, &random)
                    default:
                        FileHandle.standardError.write(Data("unknown role \(role)\n".utf8))
                        exit(2)
                    }
                    ok += 1
                    if role == "writer", let killAfter, killAfter.count == 2, ok == killAfter[0] {
                        SelfKill.start(within: killAfter[1], random: &random)
                    }
                } catch {
                    errors += 1
                    FileHandle.standardError.write(Data("\(role): \(error)\n".utf8))
                }
            }
            store.close()
        } catch {
            FileHandle.standardError.write(Data("\(role): cannot open: \(error)\n".utf8))
            exit(1)
        }
        // A reader's `ok` counts reads, misses included; `hits` counts those that found an entry.
        let hitCount = role == "reader" ? " hits=\(hits)" : ""
        FileHandle.standardOutput.write(Data("\(role) ok=\(ok)\(hitCount) errors=\(errors)\n".utf8))
        exit(errors == 0 ? 0 : 1)
    }

    /// STORAGE_WORKER_SMALL=1: entries of 256 bytes to 8 KiB instead of 512 bytes to 64 KiB, so a
    /// recording of every write stays small.
    static let smallEntries = ProcessInfo.processInfo.environment["STORAGE_WORKER_SMALL"] == "1"

    static func durability(_ text: String) -> Durability? {
        switch text {
        case "eachCommit": return .eachCommit
        case "full": return .full
        default:
            guard text.hasPrefix("periodic-ms:"), let milliseconds = Int(text.dropFirst(12)) else { return nil }
            return .periodic(interval: .milliseconds(milliseconds))
        }
    }

    static func randomKey(_ random: inout SeededRandom, prefix: String = "shared") -> String {
        let number = Int(random.next() % UInt64(keySpace))
        // Length is a function of the number, so each key names exactly one payload.
        let length = smallEntries ? 256 + (number * 7_919) % (8 * 1024) : 512 + (number * 7_919) % (64 * 1024)
        return TestPayload.key(prefix: prefix, number: number, length: length)
    }

    /// Puts a batch of a new generation and, once it has committed, prints `ack GEN KEY…` (one
    /// line, one write(2)), so a test knows exactly which puts a kill must not lose.
    static func write(
        _ store: PersistentStore, _ random: inout SeededRandom, generation: inout UInt64, prefix: String = "shared"
    ) async throws {
        generation += 1
        let count = 1 + Int(random.next() % 8)
        var keys: [String] = []
        for _ in 0..<count {
            let key = randomKey(&random, prefix: prefix)
            if !keys.contains(key) { keys.append(key) }
        }
        let entries = keys.map { key in
            NewEntry(
                key: key, data: TestPayload.bytes(for: key, generation: generation)!,
                attributes: EntryAttributes(etag: TestPayload.etag(generation: generation)))
        }
        try await store.put(entries)
        FileHandle.standardOutput.write(Data("ack \(generation) \(keys.joined(separator: " "))\n".utf8))
        if random.next() % 4 == 0 {
            // New attributes, same bytes: the generation (in the entity tag) stays.
            let key = randomKey(&random, prefix: prefix)
            // Conditional on the bytes read, as a 304's update is: the other writer may store new
            // bytes for the key between this read and the update.
            if let entry = try store.peek(key) {
                var attributes = entry.metadata.attributes
                attributes.contentType = "image/x-updated"
                _ = try await store.updateAttributes(for: key, to: attributes, ifBytesAre: entry.data)
            }
        }
    }

    /// `lanes` tasks putting `batches` batches between them, each with its own keys, generations
    /// and random sequence; returns the batches acknowledged and the errors.
    static func writeInLanes(
        _ store: PersistentStore, lanes: Int, batches: Int, until deadline: Date, seed: UInt64
    ) async -> (ok: Int, errors: Int) {
        await withTaskGroup(of: (Int, Int).self) { group in
            for lane in 0..<lanes {
                group.addTask {
                    var random = SeededRandom(seed: seed &+ UInt64(lane))
                    var generation = (seed << 32) | (UInt64(lane) << 24)
                    var ok = 0
                    var errors = 0
                    while Date() < deadline && ok < batches / lanes {
                        do {
                            try await write(store, &random, generation: &generation, prefix: "lane\(lane)")
                            ok += 1
                        } catch {
                            errors += 1
                            FileHandle.standardError.write(Data("writer lane \(lane): \(error)\n".utf8))
                        }
                    }
                    return (ok, errors)
                }
            }
            return await group.reduce((0, 0)) { ($0.0 + $1.0, $0.1 + $1.1) }
        }
    }

    /// Reads a random key: whether it was a hit, and 1 when its bytes or metadata were wrong.
    static func read(_ store: PersistentStore, _ random: inout SeededRandom) throws -> (hit: Bool, wrong: Int) {
        let key = randomKey(&random)
        guard let entry = try store.get(key) else { return (false, 0) }
        if !TestPayload.matches(entry.data, key: key, etag: entry.metadata.attributes.etag)
            || entry.metadata.byteCount != entry.data.count || entry.metadata.key != key
        {
            FileHandle.standardError.write(Data("reader: wrong bytes for \(key)\n".utf8))
            return (true, 1)
        }
        return (true, 0)
    }

    /// Checks every listed entry against its payload and runs a full verification.
    static func check(_ store: PersistentStore) async throws -> (ok: Int, errors: Int) {
        var ok = 0
        var errors = 0
        for metadata in try store.entries() {
            if let hit = try store.get(metadata.key),
                TestPayload.matches(hit.data, key: metadata.key, etag: hit.metadata.attributes.etag)
            {
                ok += 1
            } else {
                errors += 1
                FileHandle.standardError.write(Data("check: \(metadata.key) unreadable or wrong\n".utf8))
            }
        }
        let report = try await store.verify()
        for problem in report.problems { FileHandle.standardError.write(Data("check: \(problem)\n".utf8)) }
        return (ok, errors + report.problems.count)
    }

    static func evict(_ store: PersistentStore, _ random: inout SeededRandom) async throws {
        switch random.next() % 3 {
        case 0: try await store.remove(randomKey(&random))
        case 1: try await store.evict(toBytes: Int(random.next() % (6 * 1024 * 1024)))
        default: _ = try store.entries(matching: EntryQuery(order: .leastRecentlyUsed, limit: 20))
        }
        try await Task.sleep(for: .milliseconds(5))
    }

    /// The `serve` role: the second process of the storage simulation, or a recorded process of
    /// the power-loss tests. STORAGE_WORKER_SCRIPT=FILE: the operations come from FILE, one a line,
    /// instead of standard input. STORAGE_WORKER_NAME=NAME: before each operation N it prints
    /// `begin NAME N LINE` and after it `done NAME N OUTCOME`, so a recording says which operations
    /// had begun and which had returned when the power went.
    static func serve(_ store: PersistentStore) async {
        let environment = ProcessInfo.processInfo.environment
        var script: [String]?
        if let path = environment["STORAGE_WORKER_SCRIPT"] {
            script = ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
            script?.reverse()
        }
        let name = environment["STORAGE_WORKER_NAME"]
        var number = 0
        while let line = script != nil ? script!.popLast() : readLine() {
            if line == "close" { break }
            if let name { FileHandle.standardOutput.write(Data("begin \(name) \(number) \(line)\n".utf8)) }
            let outcome: SimulatedOutcome
            if let operation = SimulatedOperation(line: line) {
                outcome = await operation.perform(on: store)
            } else {
                outcome = .failed("unknown operation: \(line)")
            }
            if let name {
                FileHandle.standardOutput.write(Data("done \(name) \(number) \(outcome.line)\n".utf8))
            } else {
                FileHandle.standardOutput.write(Data("= \(outcome.line)\n".utf8))
            }
            number += 1
        }
        store.close()
        FileHandle.standardOutput.write(Data("closed\n".utf8))
    }

    /// The `dump` role: what a damaged store hands out, for a test to compare with what was stored.
    static func dump(_ store: PersistentStore, _ environment: [String: String]) async throws -> String {
        guard let keysFile = environment["STORAGE_WORKER_KEYS_FILE"], let folder = environment["STORAGE_WORKER_DUMP"] else {
            return "dump needs STORAGE_WORKER_KEYS_FILE and STORAGE_WORKER_DUMP"
        }
        let keys = try String(contentsOfFile: keysFile, encoding: .utf8).split(separator: "\n").map(String.init)
        var hits = 0
        for (number, key) in keys.enumerated() {
            guard let entry = try store.get(key) else { continue }
            hits += 1
            // Whole or not at all: a fault elsewhere in the process (a write into a damaged tree)
            // must not leave a file cut short, which would read as bytes served damaged.
            try entry.data.write(to: URL(fileURLWithPath: folder).appendingPathComponent("\(number)"), options: .atomic)
        }
        // The removals the reads queued land first: statistics and the listing then agree.
        try await store.flush()
        let entries = try store.statistics().entries
        let listed = try store.entries().count
        let summary = "dump hits=\(hits) entries=\(entries) listed=\(listed)"
        // Also as a file: a test reading it needs no guess about when the output pipe is drained.
        try Data(summary.utf8).write(to: URL(fileURLWithPath: folder).appendingPathComponent("summary"), options: .atomic)
        return summary
    }
}

/// Prints the store's log and, at the message a test names, stops the logging thread for good.
struct HoldingLogHandler: LogHandler {
    var inner: StreamLogHandler
    let hold: String?

    var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        inner.log(event: event)
        guard let hold, event.message.description.contains(hold) else { return }
        FileHandle.standardOutput.write(Data("holding\n".utf8))
        while true { sleep(3600) }
    }
}

/// A SIGKILL the worker sends itself from a thread of its own, a random time from now, while its
/// other threads go on with what they do.
enum SelfKill {
    static func start(within microseconds: Int, random: inout SeededRandom) {
        let delay = useconds_t(random.next() % UInt64(max(1, microseconds)))
        let thread = Thread {
            usleep(delay)
            kill(getpid(), SIGKILL)
        }
        thread.start()
    }
}
