import AsyncHTTPClientTransport
import CacheConformance
import Foundation

/// The root package's conformance replay (http-cache-conformance) through AsyncHTTPClientTransport,
/// so its score stands beside the NIO client's and URLSession's:
///
/// ```
/// swift run http-cache-conformance-ahc ../../shared/http-cache-tests/cases.json
/// ```
@main
enum ConformanceAHCCommand {
    static func main() async throws {
        let arguments = CommandLine.arguments.dropFirst()
        guard let cases = arguments.first else {
            FileHandle.standardError.write(Data("usage: http-cache-conformance-ahc CASES.json\n".utf8))
            exit(64)
        }
        let transport = AsyncHTTPClientTransport()
        let started = ContinuousClock.now
        let lines = try await ConformanceScore.lines(casesFile: URL(fileURLWithPath: cases), transport: transport)
        try await transport.shutdown()
        print("http-cache-conformance: transport asynchttpclient, \(ContinuousClock.now - started)")
        for line in lines { print(line) }
    }
}
