import Foundation
import HTTPCaching

/// Replays many tests at once against one origin: each test gets its own cache and resource, and
/// up to `concurrency` run together.
///
/// ```swift
/// let file = try CacheTestsFile.load(from: casesURL)
/// let results = try await ConformanceRun(tests: file.privateTests).run()
/// print(Scoreboard(tests: file.privateTests, results: results, implementations: file.implementations).summary)
/// ```
package struct ConformanceRun: Sendable {
    package let tests: [CacheTestsCase]
    /// Tests running at once. 8 by default: with each test on its own clock no pause is waited
    /// out, so more at once only adds contention.
    package var concurrency = 8
    /// How requests reach the origin. A fresh ``NIOHTTPTransport`` by default.
    package var transport: any HTTPTransport = NIOHTTPTransport()
    /// Adjusts each test's cache configuration; nothing by default.
    package var configureCache: @Sendable (inout HTTPCache.Configuration) -> Void = { _ in }

    package init(tests: [CacheTestsCase]) {
        self.tests = tests
    }

    /// Runs every test; returns the outcome of each by test id.
    package func run() async throws -> [String: TestOutcome] {
        let origin = try await ConformanceOrigin.start()
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("http-cache-conformance-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (transport, configureCache) = (transport, configureCache)
        let outcomes = await withTaskGroup(of: (String, TestOutcome).self) { group in
            var pending = tests[...]
            var outcomes: [String: TestOutcome] = [:]
            func startNext() {
                guard let test = pending.popFirst() else { return }
                var replay = TestReplay(test: test, origin: origin, transport: transport, scratchFolder: scratch)
                replay.configureCache = configureCache
                group.addTask { (test.id, await replay.run()) }
            }
            for _ in 0..<max(1, concurrency) { startNext() }
            while let (id, outcome) = await group.next() {
                outcomes[id] = outcome
                startNext()
            }
            return outcomes
        }
        await origin.stop()
        (transport as? NIOHTTPTransport)?.shutdown()
        return outcomes
    }
}
