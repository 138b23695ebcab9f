import Foundation

/// Reads this process's memory use from `/proc/self/status` (Linux); zero elsewhere.
enum ProcessMemory {
    /// Anonymous resident memory in bytes (heap and stacks), and file-backed resident memory in
    /// bytes (mapped pages of LMDB's data file and of libraries, which the kernel can drop and read
    /// again, unlike anonymous memory), read together.
    ///
    /// The bench samples this after every batch it puts, on the thread that makes the next batch:
    /// read into a buffer and scanned as bytes, a sample costs little more than the kernel writing
    /// the file out, where reading it into a `String` and splitting that took five times as long,
    /// half that thread's time while inserting small entries, taken from the cores the store's
    /// threads run on.
    static func residentBytes() -> (anonymous: Int, file: Int) {
        let descriptor = open("/proc/self/status", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return (0, 0) }
        defer { close(descriptor) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16384) { buffer in
            var length = 0
            while length < buffer.count {
                let count = read(descriptor, buffer.baseAddress! + length, buffer.count - length)
                guard count > 0 else { break }
                length += count
            }
            let status = UnsafeBufferPointer(rebasing: buffer[..<length])
            return (kibibytes(labelled: "RssAnon:", in: status) * 1024, kibibytes(labelled: "RssFile:", in: status) * 1024)
        }
    }

    /// Page faults this process has waited on the disk for (major faults) since it started.
    ///
    /// A phase that measures the store rather than the disk should add none; some kernels also page
    /// out file pages nobody touched for a while (see Benchmarks/RESULTS.md), so the bench reports
    /// how many of a phase's reads went to the disk after all.
    static func majorFaults() -> Int {
        var usage = rusage()
        #if os(Linux)
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
        #else
        guard getrusage(RUSAGE_SELF, &usage) == 0 else { return 0 }
        #endif
        return Int(usage.ru_majflt)
    }

    /// The number on the line that starts with `label` (`RssAnon:   1234 kB`), 0 when there is none.
    private static func kibibytes(labelled label: StaticString, in status: UnsafeBufferPointer<UInt8>) -> Int {
        let name = UnsafeBufferPointer(start: label.utf8Start, count: label.utf8CodeUnitCount)
        var lineStart = 0
        while lineStart < status.count {
            let lineEnd = status[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? status.count
            if lineEnd - lineStart > name.count, status[lineStart..<lineStart + name.count].elementsEqual(name) {
                var value = 0
                for byte in status[(lineStart + name.count)..<lineEnd] {
                    if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                        value = value * 10 + Int(byte - UInt8(ascii: "0"))
                    } else if value > 0 {
                        break
                    }
                }
                return value
            }
            lineStart = lineEnd + 1
        }
        return 0
    }
}

/// Tracks the highest anonymous and file-backed RSS seen across samples, overall and per phase.
struct PeakMemory {
    private(set) var peakBytes = 0
    private(set) var peakFileBytes = 0
    /// The highest anonymous RSS seen in each phase, in the order the phases began.
    private(set) var peakBytesByPhase: [(phase: String, bytes: Int)] = []

    /// Samples from now on count towards `phase` too.
    mutating func begin(_ phase: String) {
        peakBytesByPhase.append((phase, 0))
        sample()
    }

    mutating func sample() {
        let (anonymous, file) = ProcessMemory.residentBytes()
        peakBytes = max(peakBytes, anonymous)
        peakFileBytes = max(peakFileBytes, file)
        if !peakBytesByPhase.isEmpty { peakBytesByPhase[peakBytesByPhase.count - 1].bytes = max(peakBytesByPhase[peakBytesByPhase.count - 1].bytes, anonymous) }
    }
}
