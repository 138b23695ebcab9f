import Foundation

/// The built `imagecache-proxy`, run as a real process on 127.0.0.1 with a free port: started
/// with the options a test gives, stopped with SIGTERM (as a service manager stops it).
final class ProxyProcess: @unchecked Sendable {
    // @unchecked: `process` is only started in `start` and signalled afterwards; Foundation's
    // Process is thread-safe for those calls.
    let process = Process()
    let port: Int
    let cacheFolder: URL
    let errorLog: URL
    private let exited: Task<Int32, Never>

    /// The signing key tests use.
    static let key = "test-signing-key-0123456789abcdef"

    /// `imagecache-proxy` beside the test binary (SwiftPM builds every product into one folder).
    static var executable: URL { siblingExecutable("imagecache-proxy") }

    static func siblingExecutable(_ name: String) -> URL {
        var directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path),
            directory.pathComponents.count > 2
        {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent(name)
    }

    /// Starts the proxy with `arguments` after `--port 0 --cache-path FOLDER --key KEY`, and waits
    /// for the line that names its port.
    init(cacheFolder: URL, arguments: [String], environment: [String: String] = [:]) async throws {
        self.cacheFolder = cacheFolder
        let logs = FileManager.default.temporaryDirectory.appendingPathComponent("proxy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        let outputFile = logs.appendingPathComponent("stdout")
        errorLog = logs.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorLog.path, contents: nil)
        process.executableURL = Self.executable
        process.arguments =
            ["serve", "--host", "127.0.0.1", "--port", "0", "--cache-path", cacheFolder.path, "--key", Self.key] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: outputFile)
        process.standardError = try FileHandle(forWritingTo: errorLog)
        let (ended, continuation) = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { process in
            continuation.yield(process.terminationStatus)
            continuation.finish()
        }
        exited = Task { await ended.first { _ in true } ?? -1 }
        try process.run()
        var found: Int?
        for _ in 0..<600 {
            let text = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.contains("listening on") }),
                let port = line.split(separator: ":").last.flatMap({ Int($0) })
            {
                found = port
                break
            }
            if !process.isRunning { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        guard let found else {
            process.terminate()
            throw ProxyProcessError.didNotStart((try? String(contentsOf: errorLog, encoding: .utf8)) ?? "")
        }
        port = found
    }

    /// `http://127.0.0.1:PORT` + `path`.
    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// Sends SIGTERM and waits for the exit status.
    @discardableResult
    func stop() async -> Int32 {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        return await exited.value
    }

    /// What the proxy logged.
    var log: String { (try? String(contentsOf: errorLog, encoding: .utf8)) ?? "" }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

enum ProxyProcessError: Error, CustomStringConvertible {
    case didNotStart(String)

    var description: String {
        switch self {
        case let .didNotStart(log): "imagecache-proxy did not start; its log:\n\(log)"
        }
    }
}
