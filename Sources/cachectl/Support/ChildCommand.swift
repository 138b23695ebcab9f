import CacheStorage
import Foundation

/// This cachectl run again as a child process, for work that may fault: walking a damaged store.
///
/// A fault there ends the child, and the parent reports it as a finding instead of dying of it.
/// Output goes to a file, so a long report never blocks on a full pipe, and the wait for the exit
/// happens in the termination handler, off Swift's cooperative threads.
struct ChildCommand {
    /// How the child ended and what it printed.
    struct Outcome {
        /// The exit status, or the signal's number when ``crashed``.
        var status: Int32
        /// Whether a signal ended it (a fault, an abort).
        var crashed: Bool
        var output: String
        var errors: String

        /// The last line the child wrote to standard error: its reason, for a failure.
        var lastError: String {
            errors.split(separator: "\n").last.map { String($0).trimmingCharacters(in: .whitespaces) } ?? "no message"
        }
    }

    let arguments: [String]

    func run() async throws -> Outcome {
        let name = "cachectl-child-\(UUID().uuidString)"
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(name)
        let scratchErrors = FileManager.default.temporaryDirectory.appendingPathComponent(name + "-errors")
        for file in [scratch, scratchErrors] {
            guard FileManager.default.createFile(atPath: file.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw CommandFailure.fileSystem(path: file.path, action: "create", reason: "cannot create a file for a child's output")
            }
        }
        defer {
            try? FileManager.default.removeItem(at: scratch)
            try? FileManager.default.removeItem(at: scratchErrors)
        }
        let output = try FileHandle(forWritingTo: scratch)
        let errors = try FileHandle(forWritingTo: scratchErrors)
        let process = Process()
        process.executableURL = Platform.executableURL
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        let exited = AsyncStream<(Int32, Bool)>.makeStream()
        process.terminationHandler = { exited.continuation.yield(($0.terminationStatus, $0.terminationReason == .uncaughtSignal)) }
        try process.run()
        var statuses = exited.stream.makeAsyncIterator()
        guard let (status, crashed) = await statuses.next() else { throw CancellationError() }
        try output.close()
        try errors.close()
        return Outcome(
            status: status, crashed: crashed, output: (try? String(contentsOf: scratch, encoding: .utf8)) ?? "",
            errors: (try? String(contentsOf: scratchErrors, encoding: .utf8)) ?? "")
    }
}
