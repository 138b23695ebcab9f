import Foundation

/// Reads this process's memory use from `/proc/self/status` (Linux); zero elsewhere.
enum ProcessMemory {
    /// Anonymous resident memory in bytes (heap and stacks), and file-backed resident memory in
    /// bytes (mapped pages of LMDB's data file and of libraries, which the kernel can drop and read
    /// again, unlike anonymous memory), read together.
    static func residentBytes() -> (anonymous: Int, file: Int) {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
        var resident = (anonymous: 0, file: 0)
        for line in status.split(separator: "\n") where line.hasPrefix("Rss") {
            let bytes = (line.split(separator: " ").compactMap { Int($0) }.first ?? 0) * 1024
            if line.hasPrefix("RssAnon:") { resident.anonymous = bytes }
            if line.hasPrefix("RssFile:") { resident.file = bytes }
        }
        return resident
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
