import Foundation
import ImageCache
import Testing
import TestSupport

/// `inspectPrefix` and `headerInfo` on partial downloads.
@Suite("Prefix inspection")
struct PrefixInspectionTests {
    let validator = ImageValidator()

    @Test("too few bytes means wait, not refuse")
    func shortPrefixesWait() throws {
        #expect(validator.inspectPrefix(Data()) == .needMoreBytes)
        #expect(validator.inspectPrefix(Data([0x89, 0x50])) == .needMoreBytes)
        #expect(validator.inspectPrefix(Data(SyntheticImages.png(width: 3, height: 2).prefix(20))) == .needMoreBytes)
        #expect(try validator.headerInfo(Data([0xFF, 0xD8, 0xFF, 0xE0])) == nil)
    }

    @Test("the size is known as soon as the header has arrived")
    func headerFromPrefix() throws {
        let png = Data(SyntheticImages.png(width: 3, height: 2))
        #expect(validator.inspectPrefix(png.prefix(33)) == .accepted(ImageInfo(format: .png, pixelWidth: 3, pixelHeight: 2)))
        #expect(try validator.headerInfo(png.prefix(33))?.pixelWidth == 3)
    }

    @Test("a prefix past the header is accepted even though the file is incomplete")
    func prefixIsNotValidation() throws {
        let jpeg = Data(SyntheticImages.jpeg(width: 5, height: 4, endOfImage: false))
        #expect(try validator.headerInfo(jpeg)?.pixelHeight == 4)
        #expect(throws: ImageValidationError.self) { try validator.validate(jpeg) }
    }

    @Test("a 3.4 MB camera JPEG decides within its first 10 %, fed in 4 KB steps")
    func incrementalDownload() throws {
        // A generated one everywhere, and the corpus's real one where ../shared is beside the checkout
        // (elsewhere a notice says it was left out; CI requires it).
        var files = [(Data(SyntheticImages.cameraJPEG(width: 3120, height: 4208, totalBytes: 3_400_000)), "generated")]
        if SharedFixtures.isAvailable {
            let entry = try #require(
                try CorpusManifest.entries().first(where: { $0.path == "real/jpeg/issue70.jpg" }),
                "the corpus has no real/jpeg/issue70.jpg")
            files.append((try entry.contents(), entry.path))
        }
        for (data, name) in files {
            var received = 4096
            var verdict = validator.inspectPrefix(data.prefix(received))
            while verdict == .needMoreBytes, received < data.count {
                received += 4096
                verdict = validator.inspectPrefix(data.prefix(received))
            }
            #expect(verdict == .accepted(ImageInfo(format: .jpeg, pixelWidth: 3120, pixelHeight: 4208)), "\(name)")
            // Its EXIF and ICC segments hold about 170 KB before the frame header.
            #expect(received <= data.count / 10, "\(name): decided after \(received) bytes")
            #expect(received > 160_000, "\(name): decided before the frame header could have arrived")
        }
    }
}
