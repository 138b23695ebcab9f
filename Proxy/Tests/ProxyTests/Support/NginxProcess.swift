import Foundation

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
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard bound else { throw CocoaError(.fileWriteUnknown) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
