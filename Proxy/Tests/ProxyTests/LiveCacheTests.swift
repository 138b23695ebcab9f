import Foundation
import LoopbackOrigin
import Testing

/// `cachectl` on a running proxy's cache: another process reads and purges the store the proxy
/// writes while it runs, and the purge is real (a proxy started afterwards on the same folder
/// fetches again; the running one may still answer from its memory tier while the image is fresh).
@Suite("imagecache-proxy with cachectl beside it")
struct LiveCacheTests {
    static let image = gradientPNG(width: 160, height: 120)

    /// Runs the `cachectl` built beside the tests; its output and exit status.
    static func cachectl(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = ProxyProcess.siblingExecutable("cachectl")
        process.arguments = arguments
        let output = TemporaryFolder("cachectl-output")
        let file = output.url.appendingPathComponent("stdout")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: file)
        process.standardError = FileHandle.nullDevice
        let (ended, continuation) = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { continuation.yield($0.terminationStatus); continuation.finish() }
        try process.run()
        let status = await ended.first { _ in true } ?? -1
        return (status, (try? String(contentsOf: file, encoding: .utf8)) ?? "")
    }

    @Test("cachectl stats and purge work on the cache while the proxy runs, and the proxy fetches a purged image again",
          .timeLimit(.minutes(1)))
    func cachectlOnLiveCache() async throws {
        let fixture = try await ProxyFixture { _ in
            OriginResponse(headers: headers(("Content-Type", "image/png"), ("Cache-Control", "max-age=600")), body: Self.image)
        }
        let url = try fixture.signed("/live.png")
        #expect(try await HTTPGet.get(url).status == 200)
        // The original and its thumbnail are stored behind the answer: asked again until committed.
        var stats = (status: Int32(-1), output: "")
        try await eventually {
            stats = try await Self.cachectl(["stats", "--path", fixture.folder.url.path, "--json"])
            return stats.output.contains("\"entries\" : 2") || stats.output.contains("\"entries\":2")
        }
        #expect(stats.status == 0)
        #expect(stats.output.contains("\"entries\" : 2") || stats.output.contains("\"entries\":2"), "\(stats.output)")
        let purge = try await Self.cachectl(["purge", "--all", "--path", fixture.folder.url.path])
        #expect(purge.status == 0)
        #expect(await fixture.proxy.stop() == 0)
        let restarted = try await ProxyProcess(cacheFolder: fixture.folder.url, arguments: ["--allow-private-sources"])
        let again = try await HTTPGet.get(restarted.url(url.path))
        #expect(again.status == 200)
        #expect(fixture.originHits("/live.png") == 2)
        #expect(await restarted.stop() == 0)
        await fixture.origin.stop()
    }
}
