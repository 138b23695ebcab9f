import Foundation
import ImageCache
import ImageDecoding
import LoopbackOrigin
import Synchronization
import TestSupport
import Testing

/// Other sizes of an image from the decode kept beside its bytes (`DecodedBase`): the first size
/// decodes a base at the smallest power-of-two reduction that covers it, every later size it covers
/// is resampled from it without a decode, a larger one decodes a larger base, and a base never
/// outlives, or meets, bytes other than those it was decoded from.
@Suite("Decoded bases")
struct DecodedBaseTests {
    /// The platform decoder, recording what it was asked to decode.
    final class RecordingDecoder: ImageDecoder {
        let asked = Mutex<[ImageProcessing]>([])
        func decode(_ data: Data, processing: ImageProcessing, maxPixelCount: Int) throws(ImageDecodingError) -> DecodedImage {
            asked.withLock { $0.append(processing) }
            return try PlatformImageDecoder().decode(data, processing: processing, maxPixelCount: maxPixelCount)
        }
        var decodes: [ImageProcessing] { asked.withLock { $0 } }
    }

    static func photo(blue: UInt8) -> Data {
        PNGEncoder.encode(width: 400, height: 240) { x, y in (UInt8((x * 255) / 399), UInt8((y * 255) / 239), blue) }
    }

    func thumbnail(_ side: Int, _ fixture: PipelineFixture) async throws -> DecodedImage {
        var request = fixture.request("/photo.png")
        request.processing = .thumbnail(maxPixelSize: side)
        return try #require(try await fixture.pipeline.image(for: request).decoded)
    }

    @Test("sizes a kept base covers are resampled without a decode, near libvips' own thumbnail; a larger size decodes a larger base, which then serves the smaller ones")
    func sizesFromTheBase() async throws {
        let decoder = RecordingDecoder()
        let photo = Self.photo(blue: 90)
        let fixture = try await PipelineFixture(decoder: decoder) { _ in
            OriginResponse(headers: headers(("Cache-Control", "max-age=3600")), body: photo)
        }
        // 60 of 400 pixels: an eighth (50 pixels) would not cover it, a quarter (100) does.
        let first = try await thumbnail(60, fixture)
        #expect(decoder.decodes == [.thumbnail(maxPixelSize: 100)])
        #expect((first.pixelWidth, first.pixelHeight) == (60, 36))
        for side in [99, 75, 31] { _ = try await thumbnail(side, fixture) }
        #expect(decoder.decodes.count == 1)
        // 150 pixels needs half the image.
        let larger = try await thumbnail(150, fixture)
        #expect(decoder.decodes == [.thumbnail(maxPixelSize: 100), .thumbnail(maxPixelSize: 200)])
        let fromLarger = try await thumbnail(97, fixture)
        #expect(decoder.decodes.count == 2)
        for (image, side) in [(first, 60), (larger, 150), (fromLarger, 97)] {
            let direct = try PlatformImageDecoder(isolation: .inProcess).decode(
                photo, processing: .thumbnail(maxPixelSize: side), maxPixelCount: 100_000_000)
            #expect((image.pixelWidth, image.pixelHeight) == (direct.pixelWidth, direct.pixelHeight))
            let difference = image.meanColourDifference(to: direct)
            #expect(difference < 2, "\(side) pixels: mean difference \(difference)")
        }
        #expect(fixture.originHits("/photo.png") == 1)
    }

    @Test("the base is charged to the memory tier with the bytes it was decoded from")
    func chargedToMemory() async throws {
        let photo = Self.photo(blue: 10)
        let fixture = try await PipelineFixture(decoder: RecordingDecoder()) { _ in
            OriginResponse(headers: headers(("Cache-Control", "max-age=3600")), body: photo)
        }
        _ = try await fixture.pipeline.image(for: fixture.request("/photo.png"))
        let bytesOnly = fixture.pipeline.memoryCost
        let thumbnail = try await thumbnail(40, fixture)
        // The bytes, the thumbnail's pixels and the base's: 50 × 30 pixels at an eighth.
        #expect(fixture.pipeline.memoryCost >= bytesOnly + thumbnail.cost + 50 * 30 * 4)
    }

    @Test("new bytes for the same URL take the base with them: the next size is decoded from them, in their colours")
    func replacedBytesDropTheBase() async throws {
        let decoder = RecordingDecoder()
        let version = Atomic<Int>(0)
        let fixture = try await PipelineFixture(decoder: decoder) { _ in
            let blue: UInt8 = version.load(ordering: .relaxed) == 0 ? 0 : 255
            return OriginResponse(headers: headers(("Cache-Control", "max-age=0")), body: Self.photo(blue: blue))
        }
        let before = try await thumbnail(80, fixture)
        #expect(before.pixel(x: 40, y: 20).2 < 10)
        #expect(decoder.decodes.count == 1)
        version.store(1, ordering: .relaxed)
        let after = try await thumbnail(70, fixture)
        #expect(decoder.decodes.count == 2)
        #expect(after.pixel(x: 35, y: 20).2 > 245)
    }

    @Test("the base is the largest shrink that covers the target; SVG, the original and more than half of a large image have none")
    func notEveryRequestKeepsABase() {
        let photo = ImageInfo(format: .jpeg, pixelWidth: 4000, pixelHeight: 3000)
        #expect(DecodedBase.shrink(for: photo, processing: .thumbnail(maxPixelSize: 2500)) == nil)
        #expect(DecodedBase.shrink(for: photo, processing: .thumbnail(maxPixelSize: 2000)) == 2)
        #expect(DecodedBase.shrink(for: photo, processing: .thumbnail(maxPixelSize: 500)) == 8)
        #expect(DecodedBase.shrink(for: photo, processing: .original) == nil)
        let small = ImageInfo(format: .png, pixelWidth: 500, pixelHeight: 400)
        #expect(DecodedBase.shrink(for: small, processing: .thumbnail(maxPixelSize: 400)) == 1)
        #expect(DecodedBase.processing(for: small, shrink: 1) == .original)
        let drawing = ImageInfo(format: .svg, pixelWidth: 4000, pixelHeight: 3000)
        #expect(DecodedBase.shrink(for: drawing, processing: .thumbnail(maxPixelSize: 100)) == nil)
        // Filled, the scale is the one that covers the box, in either orientation (the stored size
        // is before EXIF rotation): 1,000 of 3,000 pixels across for a turned photo.
        #expect(DecodedBase.shrink(for: photo, processing: .resized(width: 1000, height: 100, mode: .fill)) == 2)
        #expect(DecodedBase.shrink(for: photo, processing: .resized(width: 1000, height: 100, mode: .fit)) == 8)
    }
}
