import CacheStorage
import Foundation

/// Runs the benchmark phases and times them.
struct BenchRunner {
    let folder: URL
    let configuration: StoreConfiguration
    let batch: Int
    let reads: Int

    func run(_ workload: inout FeedWorkload, memory: inout PeakMemory) async throws -> BenchReport {
        var report = BenchReport()
        report.entries = workload.sizes.count
        report.bytes = workload.totalBytes
        report.reads = reads
        let expiresAt = Date().addingTimeInterval(86_400)

        // What the harness itself holds before any store exists (the workload's size table grows
        // with the entry count: 8 bytes an entry), so the store's share can be told apart.
        memory.begin("harness")
        // Insert.
        memory.begin("insert")
        var store = try PersistentStore(directory: folder, configuration: configuration)
        // Up to two batches in flight, as concurrent downloads would submit them; the writer
        // commits what is queued together. Wall time of the whole phase, making the bytes included.
        let insertStart = ContinuousClock.now
        let writer = store
        try await withThrowingTaskGroup(of: Void.self) { group in
            var inFlight = 0
            var number = 0
            while number < workload.sizes.count {
                let end = min(number + batch, workload.sizes.count)
                var entries: [NewEntry] = []
                for index in number..<end {
                    let attributes = EntryAttributes(expiresAt: expiresAt, etag: "\"\(index)-v1\"", format: "jpeg")
                    entries.append(
                        NewEntry(key: FeedWorkload.key(index), data: workload.bytes(count: workload.sizes[index]), attributes: attributes))
                }
                if inFlight == 2 {
                    try await group.next()
                    inFlight -= 1
                }
                group.addTask { try await writer.put(entries) }
                inFlight += 1
                number = end
                memory.sample()
            }
            try await group.waitForAll()
        }
        report.insertSeconds = (ContinuousClock.now - insertStart).seconds
        try await store.flush()
        store.close()

        // Reopen: cold (the store's files synced and dropped from the page cache first, as after
        // a reboot or under memory pressure), then warm.
        memory.begin("open")
        let droppedCache = PageCache.drop(filesUnder: folder)
        var openStart = ContinuousClock.now
        store = try PersistentStore(directory: folder, configuration: configuration)
        report.openColdMilliseconds = droppedCache ? (ContinuousClock.now - openStart).seconds * 1000 : nil
        store.close()
        openStart = ContinuousClock.now
        store = try PersistentStore(directory: folder, configuration: configuration)
        report.openMilliseconds = (ContinuousClock.now - openStart).seconds * 1000
        var warmOpens = [report.openMilliseconds]
        for _ in 1..<9 {
            store.close()
            openStart = ContinuousClock.now
            store = try PersistentStore(directory: folder, configuration: configuration)
            warmOpens.append((ContinuousClock.now - openStart).seconds * 1000)
        }
        report.openWarmMedianMilliseconds = warmOpens.sorted()[warmOpens.count / 2]
        memory.sample()
        // The reads measure the store, not the disk: the files come back into the page cache (as
        // the baselines' files are, written just before their reads), untimed.
        if droppedCache { PageCache.load(filesUnder: folder) }

        // Reads from one task.
        memory.begin("read")
        let sequence = workload.zipfReads(count: reads)
        var latencies = [Double](repeating: 0, count: reads)
        var misses = 0
        var bytesRead = 0
        let faultsBeforeReads = ProcessMemory.majorFaults()
        let readStart = ContinuousClock.now
        for (index, number) in sequence.enumerated() {
            let start = ContinuousClock.now
            if let hit = try store.get(FeedWorkload.key(number)) { bytesRead += hit.data.count } else { misses += 1 }
            latencies[index] = (ContinuousClock.now - start).seconds * 1_000_000
            if index % 4096 == 0 { memory.sample() }
        }
        report.readSeconds = (ContinuousClock.now - readStart).seconds
        report.readMajorFaults = ProcessMemory.majorFaults() - faultsBeforeReads
        report.readMisses = misses
        report.bytesRead = bytesRead
        latencies.sort()
        report.readP50Microseconds = Self.percentile(50, of: latencies)
        report.readP99Microseconds = Self.percentile(99, of: latencies)
        memory.sample()

        // Evict to half, with puts of new entries issued one after another meanwhile: how long a
        // writer waits behind a mass eviction.
        memory.begin("evict")
        // The read phase's access times are persisted first, untimed: the eviction's first slice
        // persists every one still waiting (so that it takes the least recently read), and
        // otherwise the first put would measure that, not the eviction.
        try await store.flush()
        let statsBefore = try store.statistics()
        let evicting = store
        let finished = EvictionDone()
        let faultsBeforeEviction = ProcessMemory.majorFaults()
        let evictStart = ContinuousClock.now
        let eviction = Task {
            defer { finished.set() }
            return try await evicting.evict(toBytes: statsBefore.bytes / 2)
        }
        var putLatencies: [Double] = []
        while !finished.isSet {
            let number = workload.sizes.count + putLatencies.count
            let entry = NewEntry(
                key: FeedWorkload.key(number), data: workload.bytes(count: workload.sizes[putLatencies.count % workload.sizes.count]),
                attributes: EntryAttributes(expiresAt: expiresAt, format: "jpeg"))
            let start = ContinuousClock.now
            try await store.put([entry])
            putLatencies.append((ContinuousClock.now - start).seconds * 1000)
            memory.sample()
        }
        let removed = try await eviction.value
        report.evictMilliseconds = (ContinuousClock.now - evictStart).seconds * 1000
        report.evictMajorFaults = ProcessMemory.majorFaults() - faultsBeforeEviction
        report.evictedEntries = removed.entries
        putLatencies.sort()
        report.putsDuringEviction = putLatencies.count
        report.putDuringEvictionP50Milliseconds = Self.percentile(50, of: putLatencies)
        report.putDuringEvictionP99Milliseconds = Self.percentile(99, of: putLatencies)
        report.putDuringEvictionMaxMilliseconds = putLatencies.last ?? 0
        memory.sample()
        store.close()
        return report
    }

    /// The `percent`th percentile of `sorted` (ascending); 0 when it is empty.
    static func percentile(_ percent: Int, of sorted: [Double]) -> Double {
        sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, sorted.count * percent / 100)]
    }
}

/// Set once, when an eviction has returned; read by the loop putting beside it.
private final class EvictionDone: @unchecked Sendable {
    // @unchecked: `done` is only touched under `lock`.
    private let lock = NSLock()
    private var done = false

    var isSet: Bool { lock.withLock { done } }
    func set() { lock.withLock { done = true } }
}

/// Drops a closed store's files from the page cache, so the next open reads from the disk.
enum PageCache {
    /// Syncs each regular file under `folder` and tells the kernel its cached pages are not needed
    /// (`Platform.dropCachedPages`). False where unsupported.
    static func drop(filesUnder folder: URL) -> Bool {
        guard let names = FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] else { return false }
        var dropped = true
        for name in names {
            let path = folder.appendingPathComponent(name).path
            let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            var info = stat()
            guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            dropped = Platform.dropCachedPages(descriptor) && dropped
        }
        return dropped
    }

    /// Reads every regular file under `folder` once, bringing it back into the page cache.
    ///
    /// Read, not mapped: a copy mapped by the harness (`MAP_POPULATE`) until the reads ended made
    /// the store's reads about twice as slow, with a p99 four times as long, as reading it this way.
    static func load(filesUnder folder: URL) {
        guard let names = FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] else { return }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        for name in names {
            let descriptor = open(folder.appendingPathComponent(name).path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            var info = stat()
            guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            while buffer.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
        }
    }
}

