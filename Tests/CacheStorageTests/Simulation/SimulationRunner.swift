@testable import CacheStorage
import Foundation
import TestSupport

/// Runs a sequence of operations on a real store, from this process and a second one
/// (`storage-worker serve`), and checks the store against ``SimulationModel`` after every step.
final class SimulationRunner {
    /// What stopped a run: the step (from 0) and what was wrong.
    struct Failure: Error, CustomStringConvertible {
        var step: Int
        var message: String
        var description: String { "step \(step): \(message)" }
    }

    /// Limits low enough that puts evict, and a pointer tail merged every few puts, in slices.
    static let byteLimit = 1 << 20
    static let entryLimit = 30
    static let mergeThreshold = 8
    static let mergeSlice = 3

    static var configuration: StoreConfiguration {
        var configuration = StoreConfiguration()
        configuration.byteLimit = byteLimit
        configuration.entryLimit = entryLimit
        configuration.pointerMergeThreshold = mergeThreshold
        configuration.pointerMergeSlice = mergeSlice
        // Damage must show as an error, never be repaired out of sight.
        configuration.recovery = .throwError
        return configuration
    }

    private let directory: URL
    /// Every how many steps every key is read and the store verified.
    private let fullCheckInterval: Int
    private var store: PersistentStore
    private var remote: WorkerProcess?
    private var remoteLines = 0
    private(set) var model = SimulationModel()
    private var random: SeededRandom
    private(set) var counts: [String: Int] = [:]

    init(directory: URL, seed: UInt64, fullCheckInterval: Int) throws {
        self.directory = directory
        self.fullCheckInterval = fullCheckInterval
        random = SeededRandom(seed: seed ^ 0x5EED)
        store = try PersistentStore(directory: directory, configuration: Self.configuration)
    }

    /// Runs operations from `next` (nil ends the run) and returns them: those done, and the one that failed last when one did.
    func run(
        _ next: (SimulationModel) -> SimulatedOperation?
    ) async -> (done: [SimulatedOperation], failure: Failure?) {
        var done: [SimulatedOperation] = []
        var failure: Failure?
        while let operation = next(model) {
            done.append(operation)
            do {
                try await step(operation, number: done.count - 1)
                if done.count % fullCheckInterval == 0 { try await fullCheck(step: done.count - 1) }
            } catch let error as Failure {
                failure = error
                break
            } catch {
                failure = Failure(step: done.count - 1, message: "\(error)")
                break
            }
        }
        if failure == nil {
            do { try await fullCheck(step: done.count - 1) } catch {
                failure = error as? Failure ?? Failure(step: done.count - 1, message: "\(error)")
            }
        }
        await stopRemote()
        store.close()
        return (done, failure)
    }

    private func step(_ operation: SimulatedOperation, number: Int) async throws {
        counts[Self.name(operation), default: 0] += 1
        func fail(_ message: String) -> Failure { Failure(step: number, message: "\(operation.swiftLiteral): \(message)") }
        let expected = model.apply(operation)
        let outcome: SimulatedOutcome
        switch operation {
        case .reopen:
            store.close()
            store = try PersistentStore(directory: directory, configuration: Self.configuration)
            outcome = .done
        case .restartRemote:
            if remote != nil { await stopRemote() } else { try await startRemote() }
            outcome = .done
        case let .remote(inner):
            if remote == nil { try await startRemote() }
            outcome = try await askRemote(inner)
        default:
            outcome = await operation.perform(on: store)
        }
        if case let .failed(message) = outcome { throw fail("failed: \(message)") }
        if operation == .compact {
            let refusal: SimulatedOutcome = remote == nil ? .done : .storeInUse
            guard outcome == refusal else { throw fail("answered \(outcome), expected \(refusal)") }
        } else if let expected, outcome != expected {
            throw fail("answered \(outcome), the model says \(expected)")
        }
        try check(after: operation, outcome: outcome, number: number)
    }

    /// Compares the store's listing, statistics and the bytes of the keys the operation named with
    /// the model. After an operation that may evict, what the eviction took is learned from the
    /// listing and checked: the counts it reported, the targets or limits it reached, and expired
    /// entries taken before any other. (The simulated store is far smaller than an eviction's
    /// slice, so no eviction goes on behind an operation's answer.)
    private func check(after operation: SimulatedOperation, outcome: SimulatedOutcome, number: Int) throws {
        func fail(_ message: String) -> Failure { Failure(step: number, message: "after \(operation.swiftLiteral): \(message)") }
        let evicting = operation.mayEvict
        let listing = try store.entries()
        let present = Set(listing.map(\.key))
        let before = model.entries
        if evicting {
            let evicted = model.forgetEvicted(keeping: present)
            try checkEviction(operation, outcome: outcome, evicted: evicted, before: before, fail: fail)
        }
        for metadata in listing {
            guard let entry = model.entries[metadata.key] else {
                throw fail("the store lists \(metadata.key), which the model says is gone")
            }
            if metadata.byteCount != entry.length || metadata.checksum != entry.checksum {
                throw fail("\(metadata.key) is listed with \(metadata.byteCount) bytes (checksum \(metadata.checksum)), the model has \(entry.length) (\(entry.checksum))")
            }
            if metadata.attributes != entry.attributes || metadata.source != entry.source {
                throw fail("\(metadata.key) is listed with \(metadata.attributes), source \(String(describing: metadata.source)); the model has \(entry.attributes), source \(String(describing: entry.source))")
            }
        }
        let missing = Set(model.entries.keys).subtracting(present)
        if !missing.isEmpty { throw fail("the store does not list \(missing.sorted())") }
        let statistics = try store.statistics()
        if statistics.entries != model.entries.count || statistics.bytes != model.bytes {
            throw fail("statistics say \(statistics.entries) entries, \(statistics.bytes) bytes; the model has \(model.entries.count), \(model.bytes)")
        }
        // The bytes of the keys the step named and of two others; every key's bytes every
        // `fullCheckInterval` steps (the listing above has every key's checksum at every step).
        var keys = Self.keys(of: operation)
        for _ in 0..<2 {
            keys.append(SimulationGenerator.allKeys[Int(random.next() % UInt64(SimulationGenerator.allKeys.count))])
        }
        for key in keys { try readAndCompare(key, fail: fail) }
    }

    /// What an eviction took must keep the rules: the counts an explicit one reports, the target
    /// (or, for a put, the limits) reached, and no expired entry left when an unexpired plain
    /// entry was taken (plain entries go only as victims, never as something derived).
    private func checkEviction(
        _ operation: SimulatedOperation, outcome: SimulatedOutcome, evicted: [String],
        before: [String: SimulationModel.Entry], fail: (String) -> Failure
    ) throws {
        var inner = operation
        if case let .remote(remoteOperation) = operation { inner = remoteOperation }
        switch inner {
        case let .evictToBytes(target):
            if model.bytes > target { throw fail("the store still holds \(model.bytes) bytes") }
        case let .evictToEntries(target):
            if model.entries.count > target { throw fail("the store still holds \(model.entries.count) entries") }
        default:
            if model.entries.count > Self.entryLimit || model.bytes > Self.byteLimit {
                throw fail("the store holds \(model.entries.count) entries, \(model.bytes) bytes, past its limits")
            }
        }
        if case let .removed(entries, bytes) = outcome {
            let evictedBytes = evicted.reduce(0) { $0 + (before[$1]?.length ?? 0) }
            if entries != evicted.count || bytes != evictedBytes {
                throw fail("reported \(entries) entries, \(bytes) bytes evicted; \(evicted.count), \(evictedBytes) went: \(evicted)")
            }
        }
        let now = Date()
        let unexpiredVictim = evicted.first { key in
            key.hasPrefix("b") && !(before[key]?.attributes.expiresAt.map { $0 < now } ?? false)
        }
        let expiredLeft = model.entries.first { $0.value.attributes.expiresAt.map { $0 < now } ?? false }
        if let unexpiredVictim, let expiredLeft {
            throw fail("evicted \(unexpiredVictim), which had not expired, and left \(expiredLeft.key), which had")
        }
    }

    /// Reads `key` without recording an access and compares it with the model.
    private func readAndCompare(_ key: String, fail: (String) -> Failure) throws {
        let entry = try store.peek(key)
        guard let expected = model.entries[key] else {
            if entry != nil { throw fail("\(key) reads an entry the model says is gone") }
            return
        }
        guard let entry else { throw fail("\(key) reads nothing; the model has generation \(expected.generation)") }
        let checksum = EntrySource(key: key, bytes: entry.data).checksum
        if checksum != expected.checksum || entry.data.count != expected.length {
            throw fail("\(key) reads \(entry.data.count) bytes that are not generation \(expected.generation)'s \(expected.length)")
        }
    }

    /// Every key read, every listed entry's bytes compared, and a full verification.
    private func fullCheck(step: Int) async throws {
        func fail(_ message: String) -> Failure { Failure(step: step, message: "full check: \(message)") }
        for key in SimulationGenerator.allKeys { try readAndCompare(key, fail: fail) }
        let report = try await store.verify()
        if !report.problems.isEmpty { throw fail("verify found \(report.problems)") }
        counts["full check", default: 0] += 1
    }

    private func startRemote() async throws {
        let worker = try await WorkerProcess(
            role: "serve", directory: directory, seed: 1,
            environment: [
                "STORAGE_WORKER_LIMITS": "\(Self.byteLimit),\(Self.entryLimit)",
                "STORAGE_WORKER_MERGE": "\(Self.mergeThreshold),\(Self.mergeSlice)",
                "STORAGE_WORKER_STRICT": "1",
            ], input: true)
        remote = worker
        remoteLines = 0
        guard await answer(prefix: "ready") != nil else {
            throw Failure(step: -1, message: "the second process did not open the store: \(worker.errors)")
        }
    }

    private func stopRemote() async {
        guard let worker = remote else { return }
        remote = nil
        worker.send("close")
        _ = await worker.finish()
    }

    private func askRemote(_ operation: SimulatedOperation) async throws -> SimulatedOutcome {
        guard let worker = remote else { return .failed("no second process") }
        worker.send(operation.line)
        guard let line = await answer(prefix: "= ") else {
            throw Failure(step: -1, message: "the second process ended: \(worker.errors)")
        }
        return SimulatedOutcome(line: String(line.dropFirst(2)))
    }

    /// The second process's next line starting with `prefix` (it may log other lines).
    private func answer(prefix: String) async -> String? {
        guard let worker = remote else { return nil }
        while let line = await worker.line(remoteLines) {
            remoteLines += 1
            if line.hasPrefix(prefix) { return line }
        }
        return nil
    }

    private static func keys(of operation: SimulatedOperation) -> [String] {
        switch operation {
        case let .put(put): return [put.key]
        case let .putBatch(puts): return puts.map(\.key)
        case let .putDerived(put, source, _, _): return [put.key, source]
        case let .update(key, _), let .remove(key), let .read(key): return [key]
        case let .removeMany(keys): return keys
        case let .remote(inner): return keys(of: inner)
        default: return []
        }
    }

    /// The operation's kind, for the counts a run reports.
    static func name(_ operation: SimulatedOperation) -> String {
        if case let .remote(inner) = operation { return "remote " + name(inner) }
        return String(operation.line.prefix { $0 != " " })
    }
}
