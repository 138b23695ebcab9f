import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Platform {
    /// An identifier that changes at every boot of the machine (the kernel's boot id, else its
    /// boot time); nil when the platform gives none.
    package static func bootIdentifier() -> String? {
        #if os(Linux)
        if let text = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8) {
            let id = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if !id.isEmpty { return id }
        }
        if let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let line = stat.split(separator: "\n").first(where: { $0.hasPrefix("btime ") })
        {
            return "btime-" + line.dropFirst(6).trimmingCharacters(in: .whitespaces)
        }
        return nil
        #elseif canImport(Darwin)
        var size = 0
        sysctlbyname("kern.bootsessionuuid", nil, &size, nil, 0)
        var buffer = [CChar](repeating: 0, count: max(size, 1))
        sysctlbyname("kern.bootsessionuuid", &buffer, &size, nil, 0)
        let id = String(cString: buffer)
        return id.isEmpty ? nil : id
        #else
        return nil
        #endif
    }

    /// This process's anonymous resident memory (heap and stacks) and file-backed resident memory
    /// (mapped files and libraries, which the kernel can drop and read again), in bytes; nil where
    /// the platform does not tell them apart.
    ///
    /// On Linux read from `/proc/self/status` into a buffer and scanned as bytes: a caller samples
    /// it often, and reading it into a `String` to split it costs several times as much.
    package static func residentBytes() -> (anonymous: Int, file: Int)? {
        #if os(Linux)
        let descriptor = open("/proc/self/status", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
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
        #else
        return nil
        #endif
    }

    /// Page faults this process has waited on the disk for (major faults) since it started.
    package static func majorFaults() -> Int {
        var usage = rusage()
        #if os(Linux)
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
        #else
        guard getrusage(RUSAGE_SELF, &usage) == 0 else { return 0 }
        #endif
        return Int(usage.ru_majflt)
    }

    /// The file this process was started from, links resolved.
    package static var executableURL: URL? {
        #if os(Linux)
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        #else
        Bundle.main.executableURL?.resolvingSymlinksInPath()
        #endif
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
