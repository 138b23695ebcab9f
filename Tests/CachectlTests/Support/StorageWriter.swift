import Foundation
import TestSupport

/// A `storage-worker` child process (Tests/Fixtures/StorageWorker) with the same cache open:
/// `writer` puts entries until killed (and evicts to its own 8 MiB limit), `reader` only reads.
final class StorageWorker: @unchecked Sendable {
    // @unchecked: the process and pipe are used only by the test that started the worker.
    private let process = Process()
    private let output = Pipe()

    init(role: String, directory: URL, seed: UInt64 = 7) async throws {
        process.executableURL = Cachectl.siblingExecutable("storage-worker")
        // SECONDS 0: run until killed.
        process.arguments = [role, directory.path, "0", String(seed)]
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try await ProcessLauncher.launch(process)
    }

    /// Waits until the worker has the store open (it prints `ready`).
    func waitUntilReady() -> Bool {
        var seen = Data()
        while let chunk = try? output.fileHandleForReading.read(upToCount: 1), !chunk.isEmpty {
            seen.append(chunk)
            if String(decoding: seen, as: UTF8.self).hasSuffix("ready\n") { return true }
        }
        return false
    }

    var isRunning: Bool { process.isRunning }

    /// Kills the worker and waits for it; a second call does nothing (its pid may be reused).
    func stop() {
        guard !stopped else { return }
        stopped = true
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    private var stopped = false
}
