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

    @Test("every real image decodes to its manifest size, with its frame count")
    func realImages() async throws {
        let entries = try CorpusManifest.entries(under: "real/")
        #expect(entries.count >= 150)
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
        print("corpus decoding: \(decoded) of \(entries.count) real images decoded")
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
