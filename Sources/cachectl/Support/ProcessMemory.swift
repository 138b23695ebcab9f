import CacheStorage
import Foundation

/// This process's memory use, as ``Platform`` reads it (Linux); zero elsewhere.
enum ProcessMemory {
    /// Anonymous resident memory in bytes (heap and stacks), and file-backed resident memory in
    /// bytes (mapped pages of LMDB's data file and of libraries, which the kernel can drop and read
    /// again, unlike anonymous memory), read together.
    ///
    /// The bench samples this after every batch it puts, on the thread that makes the next batch,
    /// so a sample is read as bytes, not as text.
    static func residentBytes() -> (anonymous: Int, file: Int) {
        Platform.residentBytes() ?? (0, 0)
    }

    /// Page faults this process has waited on the disk for (major faults) since it started.
    ///
    /// A phase that measures the store rather than the disk should add none; some kernels also page
    /// out file pages nobody touched for a while (see Benchmarks/RESULTS.md), so the bench reports
    /// how many of a phase's reads went to the disk after all.
    static func majorFaults() -> Int {
        Platform.majorFaults()
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
