import ArgumentParser
import CacheConformance
import Foundation
import HTTPCaching

/// Replays the http-tests/cache-tests cases (cases.json) against `HTTPCache` over a real loopback
/// origin, writes the results in the suite's published format, and prints the score by kind.
///
/// ```
/// swift run http-cache-conformance --cases ../shared/http-cache-tests/cases.json --results results.json
/// ```
@main
struct ConformanceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "http-cache-conformance",
        abstract: "Replay the HTTP caching conformance cases against HTTPCache and score the private-cache tests.")

    @Option(help: "The cases file (cases.json from http-tests/cache-tests).")
    var cases: String

    @Option(help: "Where to write the results: a JSON object keyed by test id, true or [ErrorName, message].")
    var results: String

    @Option(help: "Tests running at once.")
    var concurrency = 32

    @Option(help: "Run only tests whose id contains this text.")
    var filter: String?

    @Option(help: "How requests reach the origin: nio (order and repeated header lines kept) or urlsession.")
    var transport: TransportChoice = .nio

    @Flag(help: "List every test that did not pass, with its message.")
    var verbose = false

    enum TransportChoice: String, ExpressibleByArgument {
        case nio, urlsession
    }

    func run() async throws {
        let file = try CacheTestsFile.load(from: URL(fileURLWithPath: cases))
        let tests = file.privateTests.filter { test in filter.map { test.id.contains($0) } ?? true }
        var run = ConformanceRun(tests: tests)
        run.concurrency = concurrency
        if transport == .urlsession { run.transport = URLSessionTransport() }
        let started = ContinuousClock.now
        let outcomes = try await run.run()
        let elapsed = ContinuousClock.now - started

        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(outcomes).write(to: URL(fileURLWithPath: results))

        if verbose {
            for test in tests {
                guard let outcome = outcomes[test.id], !outcome.isPassed else { continue }
                print("✗ [\(test.kind)] \(test.id): \(outcome)")
            }
        }
        let scoreboard = Scoreboard(tests: tests, results: outcomes, implementations: file.implementations)
        print("http-cache-conformance: \(tests.count) private-cache tests in \(elapsed.formatted(.units(allowed: [.seconds], fractionalPart: .show(length: 1)))), transport \(transport.rawValue)")
        for line in scoreboard.lines { print(line) }
        let notApplicable = outcomes.values.filter { if case .notApplicable = $0 { true } else { false } }.count
        if notApplicable > 0 { print("not applicable (counted as not passed): \(notApplicable)") }
    }
}
