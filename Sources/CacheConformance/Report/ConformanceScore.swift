import Foundation
import HTTPCaching

/// The conformance replay as another package runs it: the private-cache cases of a cases file
/// through a transport of its own (the Proxy package's AsyncHTTPClient transport), and the score
/// lines `http-cache-conformance` prints.
public enum ConformanceScore {
    /// Replays the private-cache tests of `casesFile` (cases.json from http-tests/cache-tests)
    /// through `transport`, `concurrency` at once, and returns the scoreboard's lines.
    public static func lines(casesFile: URL, transport: any HTTPTransport, concurrency: Int = 32) async throws -> [String] {
        let file = try CacheTestsFile.load(from: casesFile)
        let tests = file.privateTests
        var run = ConformanceRun(tests: tests)
        run.concurrency = concurrency
        run.transport = transport
        let outcomes = try await run.run()
        return Scoreboard(tests: tests, results: outcomes, implementations: file.implementations).lines
    }
}
