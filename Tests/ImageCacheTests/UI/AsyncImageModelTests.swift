import Foundation
import ImageCache
import LoopbackOrigin
import TestSupport
import Testing

/// `CachedAsyncImage`'s decisions, made by its platform-neutral model: the request a URL, policy
/// and view size make, when a new size is worth a new decode, and the phase drawn.
@Suite("AsyncImageModel")
@MainActor
struct AsyncImageModelTests {
    nonisolated static let photo = PNGEncoder.encode(width: 400, height: 300) { x, y in (UInt8(x % 256), UInt8(y % 256), 80) }

    static func fixture() async throws -> PipelineFixture {
        try await PipelineFixture { request in
            request.path.hasSuffix("missing.png")
                ? OriginResponse(status: 404, headers: headers(("Content-Type", "text/html")), body: Data("gone".utf8))
                : OriginResponse(headers: headers(("Cache-Control", "max-age=3600")), body: Self.photo)
        }
    }

    /// Waits (bounded) until the model shows something other than `.empty`.
    func settled(_ model: AsyncImageModel) async throws -> AsyncImageModel.Phase {
        for _ in 0..<3000 {
            guard case .empty = model.phase else { return model.phase }
            try await Task.sleep(for: .milliseconds(10))
        }
        return model.phase
    }

    func decodedSize(_ phase: AsyncImageModel.Phase) -> (Int, Int)? {
        guard case let .success(image, _) = phase else { return nil }
        return (image.pixelWidth, image.pixelHeight)
    }

    @Test("no URL is empty and loads nothing; a URL without downsampling shows the image at its own size")
    func original() async throws {
        let fixture = try await Self.fixture()
        let model = AsyncImageModel(pipeline: fixture.pipeline)
        model.show(nil)
        #expect(model.phase == .empty && model.request == nil)
        model.show(fixture.origin.url("/a.png"), scale: 2)
        #expect(model.request?.processing == .original)
        #expect(decodedSize(try await settled(model)) ?? (0, 0) == (400, 300))
    }

    @Test("downsampling waits for a size, decodes at size × scale, keeps its image when the view shrinks, decodes again when it grows")
    func downsampling() async throws {
        let fixture = try await Self.fixture()
        let model = AsyncImageModel(pipeline: fixture.pipeline)
        let url = fixture.origin.url("/b.png")
        model.show(url, scale: 2, downsampling: .fit, pointSize: nil)
        model.show(url, scale: 2, downsampling: .fit, pointSize: (width: 0, height: 50))
        #expect(model.request == nil && model.phase == .empty, "no layout yet: nothing to decode for")
        #expect(fixture.originHits("/b.png") == 0)

        model.show(url, scale: 2, downsampling: .fit, pointSize: (width: 60, height: 40.2))
        #expect(model.request?.processing == .resized(width: 120, height: 81, mode: .fit))
        #expect(decodedSize(try await settled(model)) ?? (0, 0) == (108, 81))
        let shown = model.request

        model.show(url, scale: 2, downsampling: .fit, pointSize: (width: 30, height: 20))
        #expect(model.request == shown, "a smaller view keeps the image it has")
        model.show(url, scale: 2, downsampling: .fit, pointSize: (width: 100, height: 40))
        #expect(model.request?.processing == .resized(width: 200, height: 80, mode: .fit))
        #expect(decodedSize(try await settled(model)) ?? (0, 0) == (107, 80))
        model.show(url, scale: 2, downsampling: .fill, pointSize: (width: 100, height: 40))
        #expect(model.request?.processing == .resized(width: 200, height: 80, mode: .fill), "another mode is another decode")
        #expect(fixture.originHits("/b.png") == 1, "every size came from the bytes fetched once")
    }

    @Test("another URL or policy is another request; a re-render with the same one loads nothing")
    func changes() async throws {
        let fixture = try await Self.fixture()
        let model = AsyncImageModel(pipeline: fixture.pipeline)
        model.show(fixture.origin.url("/c.png"))
        _ = try await settled(model)
        let first = model.request
        model.show(fixture.origin.url("/c.png"))
        #expect(model.request == first)
        model.show(fixture.origin.url("/c.png"), policy: .duringAppSession)
        #expect(model.request?.policy == .duringAppSession)
        model.show(fixture.origin.url("/d.png"))
        #expect(model.request?.url.path == "/d.png")
        _ = try await settled(model)
        #expect(fixture.originHits("/c.png") == 1 && fixture.originHits("/d.png") == 1)
    }

    @Test("an image in memory is drawn in the first frame; a failure is a failure phase, and a retry loads again")
    func firstFrameAndFailure() async throws {
        let fixture = try await Self.fixture()
        let warm = AsyncImageModel(pipeline: fixture.pipeline)
        let url = fixture.origin.url("/e.png")
        warm.show(url, scale: 3, downsampling: .fill, pointSize: (width: 40, height: 40))
        _ = try await settled(warm)
        let cell = AsyncImageModel(pipeline: fixture.pipeline)
        cell.show(url, scale: 3, downsampling: .fill, pointSize: (width: 40, height: 40))
        #expect(decodedSize(cell.phase) ?? (0, 0) == (120, 120), "no empty frame for an image in memory")

        let broken = AsyncImageModel(pipeline: fixture.pipeline)
        broken.show(fixture.origin.url("/missing.png"))
        guard case let .failure(error) = try await settled(broken) else {
            Issue.record("expected a failure, got \(broken.phase)")
            return
        }
        #expect("\(error)".contains("404"), "\(error)")
        broken.retry()
        #expect(broken.phase == .empty)
        _ = try await settled(broken)
        #expect(fixture.originHits("/missing.png") == 2)
    }
}
