import Foundation
import TestSupport

/// A running `storage-worker` child process (built with the tests; see Tests/Fixtures/StorageWorker).
final class WorkerProcess: @unchecked Sendable {
    // @unchecked: `process` and the pipe are only used from the test that started them.
    let process = Process()
    private let output = Pipe()
    private let errors = Pipe()

    static var executable: URL {
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        // On Linux the test binary is .build/<config>/X.xctest; on Darwin it is inside the bundle.
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("storage-worker").path),
            directory.pathComponents.count > 2
        {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("storage-worker")
    }

    init(role: String, directory: URL, seconds: Double, seed: UInt64) async throws {
        process.executableURL = Self.executable
        process.arguments = [role, directory.path, String(seconds), String(seed)]
        process.standardOutput = output
        process.standardError = errors
        try await ProcessLauncher.launch(process)
    }

    /// Blocks until the child prints `ready` (its store is open) or exits.
    func waitUntilReady() -> Bool {
        var seen = Data()
        while let chunk = try? output.fileHandleForReading.read(upToCount: 1), !chunk.isEmpty {
            seen.append(chunk)
            if seen.count >= 6, String(decoding: seen.suffix(6), as: UTF8.self) == "ready\n" { return true }
        }
        return false
    }

    func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Waits for exit; returns status, stdout and stderr.
    func finish() -> (status: Int32, output: String, errors: String) {
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }
}
