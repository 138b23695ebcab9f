import Foundation
import LoopbackOrigin

/// nginx running the example configuration on a free loopback port, in front of `upstreams`.
final class NginxProcess: @unchecked Sendable {
    // @unchecked: `process` is started in `init` and only signalled afterwards.
    private let process = Process()
    private let folder = TemporaryFolder("nginx")
    let port: Int

    /// The example configuration, beside the package's Tests folder.
    static var exampleConfiguration: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("examples/consistent-hash.nginx.conf")
    }

    init(executable: String, upstreams: [Int]) async throws {
        port = try Self.freePort()
        var text = try String(contentsOf: Self.exampleConfiguration, encoding: .utf8)
        text = text.replacingOccurrences(of: "@DIR@", with: folder.url.path)
            .replacingOccurrences(of: "@PORT@", with: String(port))
            .replacingOccurrences(of: "@PROXY_A@", with: String(upstreams[0]))
            .replacingOccurrences(of: "@PROXY_B@", with: String(upstreams[1]))
        let configuration = folder.url.appendingPathComponent("nginx.conf")
        try text.write(to: configuration, atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-c", configuration.path, "-p", folder.url.path]
        process.standardError = FileHandle.nullDevice
        try process.run()
        for _ in 0..<200 {
            if (try? await HTTPGet.get(url("/healthz"), timeout: .seconds(1)))?.status == 200 { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "nginx did not start on port \(port)"])
    }

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    func stop() async {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGQUIT)
        for _ in 0..<100 where process.isRunning { try? await Task.sleep(for: .milliseconds(50)) }
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// A port nothing listens on now (bound and released; nginx binds it right after).
    private static func freePort() throws -> Int {
        try ReservedLoopbackPort().port
    }
}
