import Foundation

/// Reads this process's memory use from `/proc/self/status` (Linux); zero elsewhere.
enum ProcessMemory {
    /// Anonymous resident memory in bytes: heap and stacks, not LMDB's file-backed map pages.
    static func anonymousResidentBytes() -> Int { statusField("RssAnon:") }

    /// File-backed resident memory in bytes: mapped pages of LMDB's data file (and of libraries),
    /// which the kernel can drop and read again, unlike anonymous memory.
    static func fileResidentBytes() -> Int { statusField("RssFile:") }

    private static func statusField(_ name: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(name) {
            let kilobytes = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
            return kilobytes * 1024
        }
        return 0
    }
}

/// Tracks the highest anonymous and file-backed RSS seen across samples.
struct PeakMemory {
    private(set) var peakBytes = 0
    private(set) var peakFileBytes = 0

    mutating func sample() {
        peakBytes = max(peakBytes, ProcessMemory.anonymousResidentBytes())
        peakFileBytes = max(peakFileBytes, ProcessMemory.fileResidentBytes())
    }
}
