import Foundation
import TestSupport

/// Runs the built `cachectl` as a real process, as an operator would.
enum Cachectl {
    /// What a run printed and how it exited.
    struct Result: CustomStringConvertible {
        var status: Int32
        var output: String
        var errors: String

        var description: String { "exit \(status)\nstdout:\n\(output)\nstderr:\n\(errors)" }

        /// Standard output decoded as JSON into `type` (snake_case keys, ISO 8601 dates).
        func json<T: Decodable>(_ type: T.Type = T.self) throws -> T {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            decoder.dateDecodingStrategy = .iso8601
            return try decoder.decode(type, from: Data(output.utf8))
        }
    }

    /// `cachectl` beside the test binary (SwiftPM builds every product into the same folder).
    static var executable: URL { siblingExecutable("cachectl") }

    /// `cachectl import SOURCE --path DIRECTORY --base-url BASE --max-age AGE --json`.
    static func importFolder(_ source: URL, into directory: URL, baseURL: String, maxAge: String) async throws -> Result {
        try await run([
            "import", source.path, "--path", directory.path, "--base-url", baseURL, "--max-age", maxAge, "--json",
        ])
    }

    /// Runs `cachectl arguments…`; `environment` entries are added to this process's environment.
    ///
    /// Output goes to files rather than pipes, so a chatty run can never block on a full pipe,
    /// and the wait happens off Swift's cooperative threads (an origin in this process must keep
    /// answering while cachectl runs).
    /// `resolve` rewrites the arguments at the moment the child is spawned (see ProcessLauncher).
    static func run(
        _ arguments: [String], environment: [String: String] = [:], asUser user: UInt32? = nil,
        umask childUmask: String? = nil, resolve: (([String]) -> [String])? = nil
    ) async throws -> Result {
        let scratch = TemporaryDirectory("cachectl-output")
        let outputFile = scratch.url.appendingPathComponent("stdout")
        let errorFile = scratch.url.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        let output = try FileHandle(forWritingTo: outputFile)
        let errors = try FileHandle(forWritingTo: errorFile)
        let process = Process()
        if let user {
            // Another, unprivileged user: how an operator inspects a cache that is not theirs.
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=\(user)", "--regid=\(user)", "--clear-groups", "--", executable.path] + arguments
            process.currentDirectoryURL = URL(fileURLWithPath: "/")
        } else if let childUmask {
            // The child's own umask, set by a shell that then becomes cachectl: the test process's
            // umask is every parallel test's, and is never changed.
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "umask \(childUmask) && exec \"$0\" \"$@\"", executable.path] + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        // The handler resumes once the child exits; launch waits (see ProcessLauncher) and spawns.
        let exited = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { exited.continuation.yield($0.terminationStatus) }
        do {
            try await ProcessLauncher.launch(process) { process in
                if let resolve { process.arguments = resolve(process.arguments ?? []) }
            }
        } catch {
            process.terminationHandler = nil
            throw error
        }
        var statuses = exited.stream.makeAsyncIterator()
        guard let status = await statuses.next() else { throw CancellationError() }
        try output.close()
        try errors.close()
        return Result(
            status: status, output: try String(contentsOf: outputFile, encoding: .utf8),
            errors: try String(contentsOf: errorFile, encoding: .utf8))
    }

    /// An executable product built beside the test binary.
    static func siblingExecutable(_ name: String) -> URL { BuiltExecutable.named(name) }
}
