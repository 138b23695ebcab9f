import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The design of today's popular Swift image caches, for comparison in the same run: one file per
/// entry (named by a hash of the key, in 256 subfolders), written with POSIX `write` and no
/// fsync, read with `open`/`read`, listed by scanning the folders on open, evicted by unlinking
/// the least recently read files (access times kept in memory, as those caches do).
struct FilePerEntryBaseline {
    let folder: URL

    func run(_ workload: inout FeedWorkload, reads: Int) throws -> BenchReport {
        var report = BenchReport()
        // One thread does everything: no writer for puts to wait behind, and its memory is this
        // process's, shared with the store's run.
        report.unmeasured = [.putsDuringEviction, .memory]
        report.entries = workload.sizes.count
        report.bytes = workload.totalBytes
        report.reads = reads
        try? FileManager.default.removeItem(at: folder)
        for bucket in 0..<256 {
            try FileManager.default.createDirectory(
                at: folder.appendingPathComponent(String(format: "%02x", bucket)), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        }

        let insertStart = ContinuousClock.now
        for index in 0..<workload.sizes.count {
            let data = workload.bytes(count: workload.sizes[index])
            try write(data, to: path(FeedWorkload.key(index)))
        }
        report.insertSeconds = (ContinuousClock.now - insertStart).seconds

        let openStart = ContinuousClock.now
        var lastAccess: [String: UInt64] = [:]
        var sizes: [String: Int] = [:]
        for bucket in 0..<256 {
            let directory = folder.appendingPathComponent(String(format: "%02x", bucket)).path
            for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
                var info = stat()
                let file = directory + "/" + name
                if stat(file, &info) == 0 {
                    lastAccess[file] = UInt64(info.st_mtim.tv_sec)
                    sizes[file] = Int(info.st_size)
                }
            }
        }
        report.openMilliseconds = (ContinuousClock.now - openStart).seconds * 1000

        let sequence = workload.zipfReads(count: reads)
        var latencies = [Double](repeating: 0, count: reads)
        var clock: UInt64 = 1 << 40
        let faultsBeforeReads = ProcessMemory.majorFaults()
        let readStart = ContinuousClock.now
        for (index, number) in sequence.enumerated() {
            let start = ContinuousClock.now
            let file = path(FeedWorkload.key(number))
            if let data = read(file) {
                report.bytesRead += data.count
                clock += 1
                lastAccess[file] = clock
            } else {
                report.readMisses += 1
            }
            latencies[index] = (ContinuousClock.now - start).seconds * 1_000_000
        }
        report.readSeconds = (ContinuousClock.now - readStart).seconds
        report.readMajorFaults = ProcessMemory.majorFaults() - faultsBeforeReads
        latencies.sort()
        report.readP50Microseconds = BenchRunner.percentile(50, of: latencies)
        report.readP99Microseconds = BenchRunner.percentile(99, of: latencies)

        let evictStart = ContinuousClock.now
        var total = sizes.values.reduce(0, +)
        let target = total / 2
        for (file, _) in lastAccess.sorted(by: { $0.value < $1.value }) where total > target {
            unlink(file)
            total -= sizes[file] ?? 0
            report.evictedEntries += 1
        }
        report.evictMilliseconds = (ContinuousClock.now - evictStart).seconds * 1000
        try? FileManager.default.removeItem(at: folder)
        return report
    }

    private func path(_ key: String) -> String {
        let hash = key.utf8.reduce(UInt64(14_695_981_039_346_656_037)) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
        return folder.path + String(format: "/%02x/%016llx", hash & 0xFF, hash)
    }

    private func write(_ data: Data, to file: String) throws {
        let descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown) }
        defer { close(descriptor) }
        _ = data.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
    }

    private func read(_ file: String) -> Data? {
        let descriptor = open(file, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        var data = Data(count: Int(info.st_size))
        let count = data.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        return count == Int(info.st_size) ? data : nil
    }
}
