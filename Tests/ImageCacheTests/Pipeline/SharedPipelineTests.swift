import CacheStorage
import Foundation
import LoopbackOrigin
import TestSupport
import Testing

@testable import ImageCache

/// The front door: `ImagePipeline.shared` is `ImagePipeline(diskCacheAt: PersistentStore.defaultDirectory)`,
/// exercised here on temporary folders (the test never touches the user's own cache).
@Suite("The shared pipeline")
struct SharedPipelineTests {
    static let png = PNGEncoder.encode(width: 8, height: 8) { x, y in (UInt8(x * 32), UInt8(y * 32), 7) }

    static func origin() async throws -> LoopbackOrigin {
        try await LoopbackOrigin.start { request in
            request.path.hasSuffix("missing.png")
                ? OriginResponse(status: 404, headers: [], body: Data("not here".utf8))
                : OriginResponse(headers: [HeaderLine("Cache-Control", "max-age=3600")], body: png)
        }
    }

    @Test("image(for: URL) keeps the image on disk: a pipeline made later on the same folder answers without the network")
    func persistsAcrossPipelines() async throws {
        let origin = try await Self.origin()
        defer { Task { await origin.stop() } }
        let folder = TemporaryDirectory("shared-pipeline")
        let url = origin.url("/front-door.png")

        let first = ImagePipeline(diskCacheAt: folder.url)
        #expect(first.diskCacheUnavailable == nil)
        #expect(first.configuration.diskCache?.directory.standardizedFileURL == folder.url.standardizedFileURL)
        #expect(try await first.image(for: url).source == .network)
        await first.waitForPendingWrites()  // the store is closed next: its write must have landed
        first.configuration.diskCache?.close()

        let relaunched = ImagePipeline(diskCacheAt: folder.url)
        defer { relaunched.configuration.diskCache?.close() }
        let response = try await relaunched.image(for: url)
        #expect(response.source == .disk)
        #expect(response.data == Self.png)
        #expect(origin.requests.count == 1)
    }

    @Test("a folder that cannot be opened leaves a memory-only pipeline that says why and still loads")
    func unopenableFolder() async throws {
        let origin = try await Self.origin()
        defer { Task { await origin.stop() } }
        let folder = TemporaryDirectory("shared-pipeline-blocked")
        // A regular file where the cache's parent folder should be: no store can be made under it.
        let blocker = folder.url.appendingPathComponent("blocker")
        try Data("file".utf8).write(to: blocker)

        let pipeline = ImagePipeline(diskCacheAt: blocker.appendingPathComponent("cache"))
        #expect(pipeline.configuration.diskCache == nil)
        let failure = try #require(pipeline.diskCacheUnavailable)
        #expect("\(failure)".contains("blocker"), "the reason does not name the folder: \(failure)")

        let url = origin.url("/memory-only.png")
        #expect(try await pipeline.image(for: url).source == .network)
        #expect(try await pipeline.image(for: url).source == .memory)
        #expect(origin.requests.count == 1)

        // Typed throws: the error is an ImageLoadError without a cast.
        do {
            _ = try await pipeline.image(for: origin.url("/missing.png"))
            Issue.record("a 404 was returned as an image")
        } catch {
            let typed: ImageLoadError = error
            #expect(typed == .httpStatus(404))
        }
    }
}
