import Foundation

/// Reads this process's memory use from `/proc/self/status` (Linux); zero elsewhere.
enum ProcessMemory {
    /// Anonymous resident memory in bytes: heap and stacks, not LMDB's file-backed map pages.
    static func anonymousResidentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("RssAnon:") {
            let kilobytes = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
            return kilobytes * 1024
        }
        return 0
    }
}

/// Tracks the highest anonymous RSS seen across samples.
struct PeakMemory {
    private(set) var peakBytes = 0

    mutating func sample() {
        peakBytes = max(peakBytes, ProcessMemory.anonymousResidentBytes())
    }
}
