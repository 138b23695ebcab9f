import Foundation
import ImageCache
import LoopbackOrigin
import TestSupport
import Testing

/// What a decoded image costs the memory tier, through the pipeline: its pixels (width × height ×
/// 4 bytes) beside its encoded bytes, and the least recently used go once the cost limit is reached.
@Suite("Decoded images in the memory tier")
struct DecodedImageCostTests {
    static let side = 64
    static let pixelBytes = side * side * 4

    /// A distinct 64×64 PNG per number.
    static func png(_ number: Int) -> Data {
        PNGEncoder.encode(width: side, height: side) { x, y in
            (UInt8(truncatingIfNeeded: x &* 4 &+ number), UInt8(truncatingIfNeeded: y &* 4), UInt8(truncatingIfNeeded: number &* 37))
        }
    }

    static func request(_ origin: LoopbackOrigin, _ number: Int) -> ImageRequest {
        ImageRequest(url: origin.url("/\(number).png"), policy: .duringAppSession, processing: .original)
    }

    @Test("a decoded image costs its encoded bytes plus width × height × 4; past the cost limit the least recently used go")
    func costAndEviction() async throws {
        let origin = try await LoopbackOrigin.start { request in
            let number = Int(request.path.dropFirst().prefix { $0 != "." }) ?? 0
            return OriginResponse(headers: [HeaderLine("Cache-Control", "max-age=3600")], body: Self.png(number))
        }
        defer { Task { await origin.stop() } }
        let largestPNG = (0..<6).map { Self.png($0).count }.max()!
        // Room for four images, each kept twice (its bytes, and its pixels beside them); none costs
        // more than a quarter of the limit, so each is kept.
        let perImage = Self.pixelBytes + 2 * largestPNG
        var configuration = ImagePipeline.Configuration()
        configuration.memoryCostLimit = 4 * perImage
        let pipeline = ImagePipeline(configuration: configuration)

        let first = try await pipeline.image(for: Self.request(origin, 0))
        let decoded = try #require(first.decoded)
        #expect(decoded.pixelWidth == Self.side && decoded.pixelHeight == Self.side)
        #expect(decoded.cost == Self.pixelBytes)
        let bytes = Self.png(0).count
        #expect(pipeline.memoryCost == bytes + (bytes + Self.pixelBytes), "bytes \(bytes), pixels \(Self.pixelBytes)")
        #expect(pipeline.cachedImage(for: Self.request(origin, 0))?.decoded == decoded)

        for number in 1..<6 { _ = try await pipeline.image(for: Self.request(origin, number)) }
        #expect(pipeline.memoryCost <= configuration.memoryCostLimit)
        // Only as much went as had to: what is left is within one image of the limit.
        #expect(pipeline.memoryCost > configuration.memoryCostLimit - perImage, "\(pipeline.memoryCost)")
        #expect(pipeline.cachedImage(for: Self.request(origin, 0)) == nil, "the least recently used image stayed")
        #expect(pipeline.cachedImage(for: Self.request(origin, 5))?.decoded?.cost == Self.pixelBytes)
        #expect(origin.requests.count == 6)
    }
}
