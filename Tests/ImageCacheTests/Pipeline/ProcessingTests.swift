import Foundation
import ImageCache
import LoopbackOrigin
import Synchronization
import TestSupport
import Testing

/// Requests with a processing: decoded off the caller's actor, once per (source, processing), kept
/// in the memory tier and answered from it while the bytes would be; damage only decoding shows is
/// a typed error.
@Suite("Processed requests")
struct ProcessingTests {
    /// The platform decoder, counting its decodes.
    final class CountingDecoder: ImageDecoder {
        let decodes = Atomic<Int>(0)
        func decode(_ data: Data, processing: ImageProcessing, maxPixelCount: Int) throws(ImageDecodingError) -> DecodedImage {
            decodes.add(1, ordering: .relaxed)
            return try PlatformImageDecoder().decode(data, processing: processing, maxPixelCount: maxPixelCount)
        }
    }

    static let photo = PNGEncoder.encode(width: 300, height: 200) { x, y in (UInt8(x % 256), UInt8(y), 90) }

    static func fixture(_ decoder: CountingDecoder) async throws -> PipelineFixture {
        try await PipelineFixture(decoder: decoder) { _ in
            OriginResponse(headers: headers(("Cache-Control", "max-age=3600")), body: Self.photo)
        }
    }

    @Test("a thumbnail request decodes once, then is a memory hit with its pixels; the bytes are fetched once")
    func thumbnailFromMemory() async throws {
        let decoder = CountingDecoder()
        let fixture = try await Self.fixture(decoder)
        var request = fixture.request("/photo.png")
        request.processing = .thumbnail(maxPixelSize: 60)
        let first = try await fixture.pipeline.image(for: request)
        #expect(first.source == .network)
        #expect(first.decoded.map { ($0.pixelWidth, $0.pixelHeight) } ?? (0, 0) == (60, 40))
        #expect(first.data == Self.photo && first.info.pixelWidth == 300)
        let again = try await fixture.pipeline.image(for: request)
        #expect(again.source == .memory)
        #expect(again.decoded?.pixels == first.decoded?.pixels)
        #expect(fixture.pipeline.cachedImage(for: request)?.decoded?.pixelWidth == 60)
        // The bytes alone are a memory hit without pixels.
        let bytes = try await fixture.pipeline.image(for: fixture.request("/photo.png"))
        #expect(bytes.source == .memory && bytes.decoded == nil)
        #expect(decoder.decodes.load(ordering: .relaxed) == 1)
        #expect(fixture.originHits("/photo.png") == 1)
    }

    @Test("concurrent identical processed requests decode once; another processing of the same bytes fetches nothing more")
    func coalesced() async throws {
        let decoder = CountingDecoder()
        let fixture = try await Self.fixture(decoder)
        var small = fixture.request("/shared.png", policy: .duringAppSession)
        small.processing = .resized(width: 30, height: 30, mode: .fill)
        let pipeline = fixture.pipeline
        let request = small
        let sizes = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<20 { group.addTask { try await pipeline.image(for: request).decoded?.pixelWidth ?? 0 } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(sizes == Array(repeating: 30, count: 20))
        #expect(decoder.decodes.load(ordering: .relaxed) == 1)
        var original = small
        original.processing = .original
        #expect(try await pipeline.image(for: original).decoded?.pixelWidth == 300)
        #expect(decoder.decodes.load(ordering: .relaxed) == 2)
        #expect(fixture.originHits("/shared.png") == 1)
    }

    @Test("a GIF whose LZW data is broken is cached as bytes but refused when pixels are asked for")
    func decodingFailure() async throws {
        // 2×2, one frame: clear, 0, then code 7, which the decoder's table does not hold yet.
        let broken = Data(
            Array("GIF89a".utf8) + [2, 0, 2, 0, 0x80, 0, 0, 0, 0, 0, 255, 255, 255]
                + [0x2C, 0, 0, 0, 0, 2, 0, 2, 0, 0, 2, 2, 0xC4, 0x0B, 0, 0x3B])
        let fixture = try await PipelineFixture(decoder: CountingDecoder()) { _ in
            OriginResponse(headers: headers(("Content-Type", "image/gif")), body: broken)
        }
        #expect(try await fixture.pipeline.image(for: fixture.request("/broken.gif")).info.format == .gif)
        var request = fixture.request("/broken.gif")
        request.processing = .original
        await #expect {
            try await fixture.pipeline.image(for: request)
        } throws: { error in
            guard case let .decodingFailed(.invalidImage(validation)) = error as? ImageLoadError else { return false }
            return validation.format == .gif && "\(error)".contains("invalid code 7")
        }
    }

    @Test("a view-cycle request decodes but keeps nothing")
    func viewCycleKeepsNothing() async throws {
        let decoder = CountingDecoder()
        let fixture = try await Self.fixture(decoder)
        var request = fixture.request("/once.png", policy: .withViewCycle)
        request.processing = .thumbnail(maxPixelSize: 10)
        #expect(try await fixture.pipeline.image(for: request).decoded?.pixelWidth == 10)
        #expect(fixture.pipeline.cachedImage(for: request) == nil)
        _ = try await fixture.pipeline.image(for: request)
        #expect(decoder.decodes.load(ordering: .relaxed) == 2)
        #expect(fixture.originHits("/once.png") == 2)
    }
}
