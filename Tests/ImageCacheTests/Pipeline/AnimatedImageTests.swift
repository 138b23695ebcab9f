import Foundation
import ImageCache
import LoopbackOrigin
import TestSupport
import Testing

/// Animated GIF and WebP through the pipeline: validated as animated, decoded to their first frame
/// with the frame count beside it.
@Suite("Animated images")
struct AnimatedImageTests {
    static let red: AnimatedImages.Colour = (255, 0, 0)
    static let green: AnimatedImages.Colour = (0, 255, 0)
    static let blue: AnimatedImages.Colour = (0, 0, 255)

    static func decoded(_ body: Data, path: String) async throws -> ImageResponse {
        let fixture = try await PipelineFixture { _ in OriginResponse(headers: headers(("Cache-Control", "max-age=3600")), body: body) }
        var request = fixture.request(path, policy: .duringAppSession)
        request.processing = .original
        return try await fixture.pipeline.image(for: request)
    }

    @Test("an animated GIF of three frames: three frames counted, the first one's pixels decoded")
    func gif() async throws {
        let gif = AnimatedImages.gif(
            width: 16, height: 12, palette: [Self.red, Self.green, Self.blue],
            frames: [(left: 0, right: 1), (left: 2, right: 2), (left: 1, right: 0)])
        let response = try await Self.decoded(gif, path: "/animated.gif")
        #expect(response.info.format == .gif && response.info.isAnimated)
        #expect(response.info.pixelWidth == 16 && response.info.pixelHeight == 12)
        let image = try #require(response.decoded)
        #expect(image.frameCount == 3)
        #expect(image.pixelWidth == 16 && image.pixelHeight == 12)
        for y in [0, 11] {
            #expect(image.pixel(x: 0, y: y) == (255, 0, 0, 255), "left half of the first frame, row \(y)")
            #expect(image.pixel(x: 7, y: y) == (255, 0, 0, 255))
            #expect(image.pixel(x: 8, y: y) == (0, 255, 0, 255), "right half of the first frame, row \(y)")
            #expect(image.pixel(x: 15, y: y) == (0, 255, 0, 255))
        }
    }

    @Test("an animated WebP of two frames: two frames counted, the first one's pixels decoded")
    func webp() async throws {
        let webp = AnimatedImages.webp(width: 10, height: 6, frames: [Self.blue, Self.red])
        let response = try await Self.decoded(webp, path: "/animated.webp")
        #expect(response.info.format == .webp && response.info.isAnimated)
        #expect(response.info.pixelWidth == 10 && response.info.pixelHeight == 6)
        let image = try #require(response.decoded)
        #expect(image.frameCount == 2)
        #expect(image.pixelWidth == 10 && image.pixelHeight == 6)
        for (x, y) in [(0, 0), (9, 0), (0, 5), (9, 5), (4, 3)] {
            #expect(image.pixel(x: x, y: y) == (0, 0, 255, 255), "(\(x), \(y)) of the first frame")
        }
    }
}
