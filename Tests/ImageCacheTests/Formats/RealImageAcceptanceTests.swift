import Foundation
import ImageCache
import Testing
import TestSupport

/// Every well-formed image in `corpus/real/` is accepted with the manifest's format and size.
@Suite("Real images are accepted")
struct RealImageAcceptanceTests {
    let validator = ImageValidator()

    @Test("validate accepts every real file with the manifest's format, size and animation", .enabled(if: SharedFixtures.isAvailable))
    func acceptsEveryRealImage() throws {
        let entries = try CorpusManifest.entries(under: "real/")
        let files = try SharedFixtures.files(under: "corpus/real")
        #expect(files.count == entries.count, "every file under corpus/real has a manifest row")
        #expect(!entries.isEmpty)
        var accepted = 0
        for entry in entries {
            let data = try entry.contents()
            do {
                let info = try validator.validate(data)
                #expect(info.format == entry.expectedFormat, "\(entry)")
                #expect(info.pixelWidth == entry.width && info.pixelHeight == entry.height,
                        "\(entry): \(info.pixelWidth)x\(info.pixelHeight), manifest \(entry.width ?? -1)x\(entry.height ?? -1)")
                #expect(info.isAnimated == entry.isAnimated, "\(entry)")
                #expect(info.frameCount == entry.frameCount, "\(entry): \(info.frameCount ?? -1) frames")
                if info.format == entry.expectedFormat, info.pixelWidth == entry.width, info.pixelHeight == entry.height,
                   info.isAnimated == entry.isAnimated {
                    accepted += 1
                }
            } catch {
                Issue.record("\(entry) refused: \(error)")
            }
        }
        print("real images accepted with the manifest's format, size and animation: \(accepted)/\(entries.count)")
        // The README quotes this figure.
        #expect(entries.count == 155)
        #expect(accepted == entries.count)
    }

    @Test("headerInfo agrees with validate on every real file", .enabled(if: SharedFixtures.isAvailable))
    func headerAgreesWithValidation() throws {
        for entry in try CorpusManifest.entries(under: "real/") {
            let data = try entry.contents()
            let header = try #require(try validator.headerInfo(data), "\(entry)")
            #expect(header.format == entry.expectedFormat, "\(entry)")
            #expect(header.pixelWidth == entry.width && header.pixelHeight == entry.height, "\(entry)")
        }
    }

    @Test("sniff names the format of every real file, whatever its extension", .enabled(if: SharedFixtures.isAvailable))
    func sniffsEveryRealImage() throws {
        for entry in try CorpusManifest.entries(under: "real/") {
            #expect(validator.sniff(try entry.contents()) == entry.expectedFormat, "\(entry)")
        }
    }
}
