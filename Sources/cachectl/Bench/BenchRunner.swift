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

        // Insert.
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

        // Reopen.
        let openStart = ContinuousClock.now
        store = try PersistentStore(directory: folder, configuration: configuration)
        report.openMilliseconds = (ContinuousClock.now - openStart).seconds * 1000
        memory.sample()

        // Reads from one task.
        let sequence = workload.zipfReads(count: reads)
        var latencies = [Double](repeating: 0, count: reads)
        var misses = 0
        var bytesRead = 0
        let readStart = ContinuousClock.now
        for (index, number) in sequence.enumerated() {
            let start = ContinuousClock.now
            if let hit = try store.get(FeedWorkload.key(number)) { bytesRead += hit.data.count } else { misses += 1 }
            latencies[index] = (ContinuousClock.now - start).seconds * 1_000_000
            if index % 4096 == 0 { memory.sample() }
        }
        report.readSeconds = (ContinuousClock.now - readStart).seconds
        report.readMisses = misses
        report.bytesRead = bytesRead
        latencies.sort()
        report.readP50Microseconds = latencies.isEmpty ? 0 : latencies[latencies.count / 2]
        report.readP99Microseconds = latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, latencies.count * 99 / 100)]
        memory.sample()

        // Evict to half.
        let statsBefore = try store.statistics()
        let evictStart = ContinuousClock.now
        let removed = try await store.evict(toBytes: statsBefore.bytes / 2)
        report.evictMilliseconds = (ContinuousClock.now - evictStart).seconds * 1000
        report.evictedEntries = removed.entries
        memory.sample()
        store.close()
        return report
    }
}

extension Duration {
    var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) / 1e18
    }
}
