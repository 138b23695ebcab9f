import Foundation
import Synchronization

/// The same thumbnails made by another program, as its users run it: `vipsthumbnail`, and
/// ImageMagick's `mogrify -thumbnail` (the batch form of `convert -thumbnail`, one process for
/// many files). Each runs as `processes` processes at once on halves of the files, with one
/// thread per image, as the pipeline decodes (several images at once, one thread each).
/// Thumbnails are written uncompressed (VIPS's `.v`, ImageMagick's PPM) to a scratch folder, so
/// the programs pay for decoding and shrinking, not for compressing their output.
enum ExternalThumbnailer: String {
    case vipsthumbnail
    case imageMagick
    /// `convert IN -thumbnail 256x256 OUT`, one process per file, as scripts usually run it.
    case imageMagickPerFile

    func run(_ files: [URL], side: Int, processes: Int) throws {
        let output = ThumbnailSet.scratch.appendingPathComponent("out-\(rawValue)")
        try? FileManager.default.removeItem(at: output)
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let share = (files.count + processes - 1) / processes
        let halves = stride(from: 0, to: files.count, by: share).map { Array(files[$0..<min($0 + share, files.count)]) }
        guard self == .imageMagickPerFile else {
            try Self.wait(for: halves.map { try launch($0, side: side, output: output) })
            return
        }
        // Each half in turn, file by file, the halves side by side.
        let failure = Mutex<(any Error)?>(nil)
        DispatchQueue.concurrentPerform(iterations: halves.count) { half in
            for (index, file) in halves[half].enumerated() {
                do {
                    try Self.wait(for: [launchConvert(file, side: side, output: output.appendingPathComponent("\(half)-\(index).ppm"))])
                } catch {
                    failure.withLock { $0 = error }
                }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
    }

    private static func wait(for processes: [Process]) throws {
        for process in processes {
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw ThumbnailSet.Failure.commandFailed(process.executableURL?.path ?? "a thumbnailer", process.terminationStatus)
            }
        }
    }

    private func launchConvert(_ file: URL, side: Int, output: URL) throws -> Process {
        try Self.launch(
            "/usr/bin/convert-im6.q16", [file.path, "-thumbnail", "\(side)x\(side)", output.path],
            environment: ["MAGICK_THREAD_LIMIT": "1"])
    }

    private func launch(_ files: [URL], side: Int, output: URL) throws -> Process {
        switch self {
        case .vipsthumbnail:
            try Self.launch(
                "/usr/bin/vipsthumbnail", ["--size", "\(side)x\(side)", "-o", output.path + "/%s.v"] + files.map(\.path),
                environment: ["VIPS_CONCURRENCY": "1"])
        case .imageMagick, .imageMagickPerFile:
            // The Debian binary itself: a wrapper named `convert` may stand earlier in PATH.
            try Self.launch(
                "/usr/bin/mogrify-im6.q16",
                ["-path", output.path, "-format", "ppm", "-thumbnail", "\(side)x\(side)"] + files.map(\.path),
                environment: ["MAGICK_THREAD_LIMIT": "1"])
        }
    }

    /// Starts `executable` with `arguments`, this process's environment plus `environment`, output discarded.
    private static func launch(_ executable: String, _ arguments: [String], environment: [String: String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }
}
