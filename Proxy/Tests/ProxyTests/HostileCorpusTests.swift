import Foundation
import LoopbackOrigin
import Testing

/// Every hostile input of the shared corpus (`../shared/corpus/bad`: bombs, corrupt, truncated,
/// not-images, unsupported formats) sent by a source through the proxy: each is answered (an
/// image, or an error status), and the proxy is still up and serving afterwards.
///
/// Needs `../shared` beside the checkout; skipped with a notice without it, unless
/// `CACHE_TESTS_REQUIRE_SHARED=1` (CI) makes that a failure.
@Suite("imagecache-proxy against the hostile corpus", .enabled(if: HostileCorpus.isAvailable))
struct HostileCorpusTests {
    @Test("no hostile image from the source takes the proxy down", .timeLimit(.minutes(3)))
    func hostileCorpus() async throws {
        let files = try HostileCorpus.files()
        #expect(files.count > 50)
        let bodies = Dictionary(uniqueKeysWithValues: try files.enumerated().map { ("/bad-\($0.offset)", try Data(contentsOf: $0.element)) })
        let fine = gradientPNG(width: 120, height: 90)
        let fixture = try await ProxyFixture(arguments: ["--queue-limit", "256"]) { request in
            OriginResponse(
                headers: headers(("Content-Type", "image/jpeg"), ("Cache-Control", "max-age=600")),
                body: bodies[request.path] ?? fine)
        }
        let paths = bodies.keys.sorted()
        var statuses: [String: Int] = [:]
        // Eight at a time, as a busy front end would send them.
        for batch in stride(from: 0, to: paths.count, by: 8) {
            let slice = paths[batch..<min(batch + 8, paths.count)]
            let answers = try await withThrowingTaskGroup(of: (String, Int).self) { group in
                for path in slice {
                    group.addTask { (path, try await HTTPGet.get(try fixture.signed(path, "fit:64x64")).status) }
                }
                return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
            }
            statuses.merge(answers) { $1 }
        }
        #expect(statuses.count == paths.count)
        #expect(statuses.values.allSatisfy { $0 == 200 || $0 == 502 }, "\(statuses.filter { $0.value != 200 && $0.value != 502 })")
        #expect(fixture.proxy.process.isRunning)
        #expect(try await HTTPGet.get(fixture.proxy.url("/healthz")).status == 200)
        #expect(try await HTTPGet.get(try fixture.signed("/fine.png")).status == 200)
        #expect(await fixture.stop() == 0)
    }
}

enum HostileCorpus {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("shared/corpus/bad", isDirectory: true)

    static var isAvailable: Bool {
        if FileManager.default.fileExists(atPath: folder.path) { return true }
        let required = ProcessInfo.processInfo.environment["CACHE_TESTS_REQUIRE_SHARED"] == "1"
        if !required { print("notice: ../shared/corpus is missing; skipping the proxy's hostile-corpus test") }
        return required
    }

    static func files() throws -> [URL] {
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
        return (enumerator?.allObjects as? [URL] ?? [])
            .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
            .sorted { $0.path < $1.path }
    }
}
