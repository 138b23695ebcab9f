import CacheStorage
import Foundation
import LoopbackOrigin
import TestSupport
import Testing

/// Every subcommand against a cache another process is writing to at the same time.
@Suite("while another process writes")
struct LiveCacheTests {
    @Test("every subcommand runs safely beside a writing process; the cache stays clean")
    func everySubcommand() async throws {
        let cache = TemporaryDirectory("live-cache")
        let path = ["--path", cache.url.path]
        let images = try GeneratedImages.folder(count: 8)
        let more = try GeneratedImages.folder(count: 4, seed: 20)
        #expect(try await GeneratedImages.importInto(cache.url, from: images.url).status == 0)
        let writer = try await WorkerProcess(role: "writer", directory: cache.url)
        defer { Foundation.kill(writer.processIdentifier, SIGKILL) }
        #expect(await writer.waitUntilReady())
        let png = GeneratedImages.png(seed: 9)
        let origin = try await LoopbackOrigin.start { _ in
            OriginResponse(headers: [HeaderLine("Cache-Control", "max-age=3600")], body: png)
        }
        let urls = cache.url.appendingPathComponent("urls.txt")
        try Data((1...5).map { origin.url("/live/\($0).png").absoluteString }.joined(separator: "\n").utf8).write(to: urls)
        let export = TemporaryDirectory("live-export")

        // The writer keeps its own 8 MiB limit and may evict anything meanwhile, so a key may
        // vanish between two commands: `show` may answer "no entry" (1), never fail to run (2).
        let runs: [(arguments: [String], allowed: Set<Int32>)] = [
            (["stats", "--json"], [0]),
            (["list", "--sort", "access", "--limit", "50"], [0]),
            (["show", GeneratedImages.key(1)], [0, 1]),
            (["show", TestPayload.key(prefix: "shared", number: 1, length: 512 + 7_919)], [0, 1]),
            (["purge", "--prefix", "shared/1", "--dry-run"], [0]),
            (["purge", "--prefix", "shared/2"], [0]),
            (["purge", "--expired", "--older-than", "1h"], [0]),
            (["export", "--to", export.url.path, "--html"], [0]),
            (["import", more.url.path, "--base-url", "https://live.example"], [0]),
            (["verify"], [0]),
            (["warm", "--urls", urls.path], [0]),
            (["compact"], [2]),
            (["stats"], [0]),
        ]
        for run in runs {
            let result = try await Cachectl.run(run.arguments + path)
            #expect(run.allowed.contains(result.status), "\(run.arguments): \(result)")
            #expect(writer.isRunning, "the writer survived \(run.arguments)")
        }
        await origin.stop()
        await writer.kill()
        // Every put the writer made beside the commands succeeded (it reports failures as `writer: …`).
        #expect(!writer.errors.contains("writer: "), "\(writer.errors)")
        #expect(writer.output.contains("ack "), "the writer wrote nothing beside the commands")
        let verified = try await Cachectl.run(["verify", "--json"] + path)
        #expect(verified.status == 0, "\(verified)")
    }
}
