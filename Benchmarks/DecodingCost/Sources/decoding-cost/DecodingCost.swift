import Foundation
import Glibc
import ImageDecoding
import ImageFormats

/// `decoding-cost FILE [SIDE]`: decodes FILE once as a SIDE-pixel thumbnail (340 by default, the
/// size `cachectl export --html` previews at) with the platform decoder as it is configured by
/// default, and prints one JSON line: the outcome, the wall time, and for this process and for
/// its decode workers the processor time and the peak resident memory above what they held
/// before. A small PNG is decoded first, so libvips is loaded and a worker started (where the
/// build uses workers) before anything is measured.
@main
enum DecodingCost {
    static func main() throws {
        let arguments = CommandLine.arguments
        guard arguments.count >= 2 else {
            print("usage: decoding-cost FILE [SIDE]")
            exit(64)
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: arguments[1]))
        let side = arguments.count > 2 ? Int(arguments[2]) ?? 340 : 340
        let decoder = PlatformImageDecoder()
        _ = try? decoder.decode(warmUpPNG, processing: .thumbnail(maxPixelSize: 16), maxPixelCount: 100_000_000)

        let before = Sample.now()
        let start = ContinuousClock.now
        let outcome: String
        do {
            let image = try decoder.decode(data, processing: .thumbnail(maxPixelSize: side), maxPixelCount: 100_000_000)
            outcome = "decoded \(image.pixelWidth)x\(image.pixelHeight)"
        } catch {
            outcome = "\(error)"
        }
        let wall = ContinuousClock.now - start
        let after = Sample.now()
        let workers = after.workers.map { pid, worker in
            (cpu: worker.cpuSeconds - (before.workers[pid]?.cpuSeconds ?? 0), peak: worker.peakBytes - (before.workers[pid]?.residentBytes ?? 0))
        }
        let report: [String: Any] = [
            "file": (arguments[1] as NSString).lastPathComponent,
            "bytes": data.count,
            "outcome": String(outcome.prefix(200)),
            "wall_s": Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18,
            "app_cpu_s": after.cpuSeconds - before.cpuSeconds,
            "app_peak_above_baseline_mb": Double(after.peakBytes - before.residentBytes) / 1e6,
            "ended_workers_cpu_s": after.endedChildrenCPUSeconds - before.endedChildrenCPUSeconds,
            "live_workers_cpu_s": workers.map(\.cpu).reduce(0, +),
            "live_workers_peak_above_baseline_mb": Double(workers.map(\.peak).max() ?? 0) / 1e6,
        ]
        let json = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])
        print(String(decoding: json, as: UTF8.self))
    }

    /// A 2 × 2 PNG.
    static let warmUpPNG = Data(
        base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGMQUDAAIgYIBQAKDgGBVjPu8wAAAABJRU5ErkJggg==")!
}

/// Processor time and memory of this process, its ended children, and its live children.
struct Sample {
    struct Worker {
        var cpuSeconds: Double
        var residentBytes: Int
        var peakBytes: Int
    }

    var cpuSeconds: Double
    var residentBytes: Int
    var peakBytes: Int
    var endedChildrenCPUSeconds: Double
    var workers: [Int32: Worker]

    static func now() -> Sample {
        let me = getpid()
        let status = memory(of: "self")
        return Sample(
            cpuSeconds: usage(RUSAGE_SELF), residentBytes: status.resident, peakBytes: status.peak,
            endedChildrenCPUSeconds: usage(RUSAGE_CHILDREN),
            workers: Dictionary(uniqueKeysWithValues: children(of: me).map { pid in
                let memory = memory(of: String(pid))
                return (pid, Worker(cpuSeconds: cpu(of: pid), residentBytes: memory.resident, peakBytes: memory.peak))
            }))
    }

    private static func usage(_ who: __rusage_who) -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(who.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// VmRSS and VmHWM, in bytes.
    private static func memory(of process: String) -> (resident: Int, peak: Int) {
        let text = (try? String(contentsOfFile: "/proc/\(process)/status", encoding: .utf8)) ?? ""
        func field(_ name: String) -> Int {
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return 0 }
            return (Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) * 1024
        }
        return (field("VmRSS"), field("VmHWM"))
    }

    /// Fields after the command name in /proc/PID/stat.
    private static func statFields(_ pid: Int32) -> [Substring] {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return [] }
        return text[text.index(close, offsetBy: 2)...].split(separator: " ")
    }

    private static func cpu(of pid: Int32) -> Double {
        let fields = statFields(pid)
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    private static func children(of parent: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { pid in
            let fields = statFields(pid)
            return fields.count > 1 && Int32(fields[1]) == parent
        }
    }
}
