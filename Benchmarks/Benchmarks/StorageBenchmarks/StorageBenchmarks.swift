import Benchmark
import CacheStorage
import Foundation

// Micro benchmarks of PersistentStore's hot paths: reads (hit, miss, metadata only) and
// synchronous writes (a 64-entry batch with the default periodic durability, the same batch with
// a sync per commit, and one entry with the default durability). Each benchmark opens its own store in a fresh temporary directory during setup
// and deletes it during teardown, so no benchmark sees another's data.

/// The size of every stored blob: a typical small image.
let payloadByteCount = 50 * 1024
/// How many entries the read benchmarks store before measuring.
let populatedEntryCount = 1_000
/// How many entries one iteration of the batch put benchmark writes.
let putBatchSize = 64
/// How many distinct random payloads the put benchmarks cycle through.
let putPayloadPoolSize = 256

let measuredMetrics: [BenchmarkMetric] = [.wallClock, .throughput, .mallocCountTotal]

let benchmarks: @Sendable () -> Void = {
    // Reads take microseconds, so each iteration runs 1,000 of them; the reported time,
    // throughput and malloc count (marked `*`) are per single read.
    let readConfiguration = Benchmark.Configuration(
        metrics: measuredMetrics,
        warmupIterations: 3,
        scalingFactor: .kilo,
        maxDuration: .seconds(3),
        maxIterations: 1_000
    )

    // Each lookup returns whether it found an entry; a hit where a miss is expected (or the
    // reverse) fails the run, so a broken store cannot post fast numbers.
    let reads: [(name: String, expectsHit: Bool, lookUp: @Sendable (PersistentStore, String) throws -> Bool)] = [
        ("get hit 50KB", true, { store, key in
            let entry = try store.get(key)
            blackHole(entry)
            return entry != nil
        }),
        ("get miss", false, { store, key in
            let entry = try store.get(key)
            blackHole(entry)
            return entry != nil
        }),
        ("metadata lookup", true, { store, key in
            let metadata = try store.metadata(for: key)
            blackHole(metadata)
            return metadata != nil
        }),
    ]
    for read in reads {
        storeBenchmark(read.name, configuration: readConfiguration) {
            try StoreFixture.populated(entries: populatedEntryCount)
        } body: { benchmark, fixture in
            let keys = read.expectsHit ? fixture.storedKeys : fixture.absentKeys
            var cursor = fixture.cursor
            for _ in benchmark.scaledIterations {
                let key = keys[cursor % keys.count]
                cursor &+= 1
                if try read.lookUp(fixture.store, key) != read.expectsHit {
                    throw read.expectsHit ? BenchmarkFailure.unexpectedMiss(key) : BenchmarkFailure.unexpectedHit(key)
                }
            }
            fixture.cursor = cursor
        }
    }

    // Writes: one putAndWait per iteration. The entries (fresh keys, pooled random payloads) are
    // built before the measurement starts, so the numbers cover only the put itself. The store's
    // byte limit is far above what a run writes, so no eviction happens while measuring.
    let puts: [(name: String, durability: Durability, entries: Int, maxIterations: Int)] = [
        ("put 50KB batch of 64 (default periodic durability)", .standard, putBatchSize, 200),
        ("put 50KB batch of 64 (sync each commit)", .eachCommit, putBatchSize, 200),
        ("put 50KB single (default periodic durability)", .standard, 1, 10_000),
    ]
    for put in puts {
        storeBenchmark(
            put.name,
            configuration: Benchmark.Configuration(
                metrics: measuredMetrics,
                warmupIterations: put.entries == 1 ? 10 : 2,
                maxDuration: .seconds(3),
                maxIterations: put.maxIterations
            )
        ) {
            try StoreFixture.forPuts(durability: put.durability)
        } body: { benchmark, fixture in
            let batch = fixture.nextNewEntries(put.entries)
            benchmark.startMeasurement()
            try fixture.store.putAndWait(batch)
            benchmark.stopMeasurement()
        }
    }
}

// MARK: - Support

enum BenchmarkFailure: Error, CustomStringConvertible {
    case unexpectedMiss(String)
    case unexpectedHit(String)
    case noFixture

    var description: String {
        switch self {
        case let .unexpectedMiss(key): "expected an entry for \(key), got none"
        case let .unexpectedHit(key): "expected no entry for \(key), got one"
        case .noFixture: "the setup did not create a store"
        }
    }
}

/// A store in its own temporary directory, alive from a benchmark's setup to its teardown.
final class StoreFixture {
    let directory: URL
    let store: PersistentStore
    /// Keys of the entries stored during setup.
    private(set) var storedKeys: [String] = []
    /// Keys that are not in the store.
    private(set) var absentKeys: [String] = []
    /// Random payloads the put benchmarks cycle through.
    private(set) var payloads: [Data] = []
    /// Where the read benchmarks' round-robin over the keys stands.
    var cursor = 0
    /// How many entries the put benchmarks have built; makes every key fresh.
    private var builtEntries = 0
    private var generator = SystemRandomNumberGenerator()

    private init(durability: Durability) throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("StorageBenchmarks-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = StoreConfiguration()
        configuration.byteLimit = 4 << 30
        configuration.durability = durability
        do {
            store = try PersistentStore(directory: directory, configuration: configuration)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        self.directory = directory
    }

    /// A default-durability store holding `entries` entries of distinct random bytes.
    static func populated(entries: Int) throws -> StoreFixture {
        let fixture = try StoreFixture(durability: .standard)
        do {
            var batch: [NewEntry] = []
            batch.reserveCapacity(putBatchSize)
            for index in 0..<entries {
                let key = imageKey("stored", index)
                let data = fixture.randomPayload()
                batch.append(NewEntry(key: key, data: data, attributes: attributes(index)))
                fixture.storedKeys.append(key)
                if batch.count == putBatchSize || index == entries - 1 {
                    try fixture.store.putAndWait(batch)
                    batch.removeAll(keepingCapacity: true)
                }
            }
            fixture.absentKeys = (0..<entries).map { imageKey("absent", $0) }
        } catch {
            fixture.remove()
            throw error
        }
        return fixture
    }

    /// An empty store with a pool of random payloads for the put benchmarks.
    static func forPuts(durability: Durability) throws -> StoreFixture {
        let fixture = try StoreFixture(durability: durability)
        fixture.payloads = (0..<putPayloadPoolSize).map { _ in fixture.randomPayload() }
        return fixture
    }

    /// `count` entries under keys never used before, with payloads from the pool.
    func nextNewEntries(_ count: Int) -> [NewEntry] {
        (0..<count).map { _ in
            let index = builtEntries
            builtEntries += 1
            return NewEntry(
                key: Self.imageKey("new", index),
                data: payloads[index % payloads.count],
                attributes: Self.attributes(index))
        }
    }

    /// Closes the store and deletes its directory.
    func remove() {
        store.close()
        try? FileManager.default.removeItem(at: directory)
    }

    private func randomPayload() -> Data {
        var data = Data(count: payloadByteCount)
        data.withUnsafeMutableBytes { bytes in
            var offset = 0
            while offset + 8 <= bytes.count {
                bytes.storeBytes(of: generator.next(), toByteOffset: offset, as: UInt64.self)
                offset += 8
            }
            while offset < bytes.count {
                bytes[offset] = UInt8.random(in: .min ... .max, using: &generator)
                offset += 1
            }
        }
        return data
    }

    private static func imageKey(_ kind: String, _ index: Int) -> String {
        "https://images.example.com/bench/\(kind)/\(index).jpg"
    }

    private static func attributes(_ index: Int) -> EntryAttributes {
        EntryAttributes(etag: "\"\(index)\"", contentType: "image/jpeg", format: "jpeg")
    }
}

/// Holds a benchmark's fixture between its setup, its iterations and its teardown.
final class FixtureSlot {
    var fixture: StoreFixture?
}

/// Registers a benchmark whose setup builds a `StoreFixture` and whose teardown removes it.
/// `body` runs once per iteration; an error it throws fails the benchmark.
func storeBenchmark(
    _ name: String,
    configuration: Benchmark.Configuration,
    makeFixture: @escaping () throws -> StoreFixture,
    body: @escaping (Benchmark, StoreFixture) throws -> Void
) {
    let slot = FixtureSlot()
    Benchmark(name, configuration: configuration) { benchmark in
        do {
            guard let fixture = slot.fixture else { throw BenchmarkFailure.noFixture }
            try body(benchmark, fixture)
        } catch {
            benchmark.error("\(name) failed: \(error)")
        }
    } setup: {
        slot.fixture = try makeFixture()
    } teardown: {
        slot.fixture?.remove()
        slot.fixture = nil
    }
}
