import Foundation
import ImageDecoding
import TestSupport
import Testing

/// Every real image of `../shared/corpus` decodes to the size its manifest row gives, upright; the
/// files only decoding or rendering shows to be bad are refused with a typed error.
@Suite("Decoding the corpus", .enabled(if: SharedFixtures.isAvailable))
struct CorpusDecodingTests {
    let decoder = PlatformImageDecoder()
    static let limit = 100_000_000

    /// The size a decoded image has: the stored size, turned when EXIF says to (orientations 5–8).
    static func uprightSize(_ entry: CorpusEntry) -> (Int, Int)? {
        guard let width = entry.width, let height = entry.height else { return nil }
        let turned = (5...8).contains { entry.variant.contains("EXIF orientation=\($0)") }
        return turned ? (height, width) : (width, height)
    }

    @Test("every real image (in the short run, TestScale's sample of every format) decodes to its manifest size, with its frame count")
    func realImages() async throws {
        let corpus = try CorpusManifest.entries(under: "real/")
        #expect(corpus.count >= 150)
        let entries = TestScale.current.sample(corpus) { $0.formatName }
        var decoded = 0
        for entry in entries {
            let image: DecodedImage
            do {
                image = try await decoder.decodeOffPool(try entry.contents(), processing: .original, maxPixelCount: Self.limit)
            } catch {
                Issue.record("\(entry.path) (\(entry.formatName)): \(error)")
                continue
            }
            decoded += 1
            if let (width, height) = Self.uprightSize(entry) {
                #expect((image.pixelWidth, image.pixelHeight) == (width, height), "\(entry.path) \(entry.variant)")
            }
            if entry.isAnimated, let frames = entry.frameCount {
                #expect(image.frameCount == frames, "\(entry.path)")
            }
            #expect(image.pixels.count == image.pixelWidth * image.pixelHeight * 4, "\(entry.path)")
        }
        print("corpus decoding (\(TestScale.current)): \(decoded) of \(entries.count) real images decoded, of \(corpus.count) in the corpus")
    }

    @Test("one picture in every encoding the corpus has (CMYK, Adobe RGB transform, 16-bit, palette, lossy) decodes to its colours, whole and as a thumbnail")
    func sameColours() async throws {
        let entries = try CorpusManifest.entries(under: "real/").filter {
            $0.path.contains("/video-001") && !$0.isAnimated
        }
        #expect(entries.count >= 15)
        let reference = try #require(entries.first { $0.path == "real/bmp/video-001.bmp" })
        for processing in [ImageProcessing.original, .thumbnail(maxPixelSize: 60)] {
            let expected = try await decoder.decodeOffPool(try reference.contents(), processing: processing, maxPixelCount: Self.limit)
            for entry in entries where entry.path != reference.path {
                let image = try await decoder.decodeOffPool(try entry.contents(), processing: processing, maxPixelCount: Self.limit)
                try #require((image.pixelWidth, image.pixelHeight) == (expected.pixelWidth, expected.pixelHeight), "\(entry.path)")
                let difference = image.meanColourDifference(to: expected)
                // Lossless encodings match; JPEG at quality 50, subsampled RGB and a 32-colour
                // palette stay within 8 levels. The CMYK file was separated through a press
                // profile: converted back through libvips' CMYK profile it is 27 levels off (26 as
                // a thumbnail), with the naive formula browsers use 35, and with its Adobe
                // inversion missed 146; other mistakes (a profile applied twice, 16-bit values
                // truncated) are tens of levels off.
                let coarse = ["q50", "5bpp", ".rgb."].contains { entry.path.contains($0) }
                let bound = entry.path.contains(".cmyk.") ? 30.0 : coarse ? 8.0 : 5.0
                #expect(difference <= bound, "\(entry.path) \(processing.identifier): \(difference) levels off on average")
            }
        }
    }

    @Test("the files whose damage only decoding or rendering shows are refused with a typed error")
    func decodeStageFiles() async throws {
        let entries = try CorpusManifest.entries(under: "bad/").filter {
            ($0.detectAt == "decode" || $0.detectAt == "render") && $0.expected == "must-reject"
        }
        #expect(entries.count == 6)
        for entry in entries {
            await #expect(throws: ImageDecodingError.self, "\(entry.path)") {
                try await decoder.decodeOffPool(try entry.contents(), processing: .original, maxPixelCount: Self.limit)
            }
        }
    }
}
