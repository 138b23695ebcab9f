import Foundation
import ImageCache
import TestSupport
import Testing

/// The structure walk on small synthetic files: each case breaks one rule.
@Suite("Structure walks")
struct StructureWalkTests {
    let validator = ImageValidator()

    private func refusal(_ bytes: [UInt8]) -> ImageValidationError? {
        do {
            _ = try validator.validate(Data(bytes))
            return nil
        } catch {
            return error
        }
    }

    @Test("a minimal PNG is accepted; a bad chunk CRC, a missing IEND or IDAT is refused")
    func pngChunks() throws {
        let info = try validator.validate(Data(SyntheticImages.png(width: 3, height: 2)))
        #expect(info == ImageInfo(format: .png, pixelWidth: 3, pixelHeight: 2, isAnimated: false, frameCount: 1, bytesPerPixel: 1))

        var damaged = SyntheticImages.png(width: 3, height: 2)
        damaged[damaged.count - 14] ^= 0x01  // Inside the IDAT body.
        #expect(refusal(damaged)?.stage == .structure)
        guard case .truncated = refusal(SyntheticImages.png(width: 3, height: 2, iend: false)) else {
            Issue.record("a PNG without IEND must be refused as truncated")
            return
        }
        #expect(refusal(SyntheticImages.png(width: 3, height: 2, idat: false))?.stage == .structure)
    }

    @Test("an APNG frame larger than its canvas is refused; acTL makes it animated")
    func animatedPNG() throws {
        let acTL = SyntheticImages.pngChunk("acTL", SyntheticImages.bigEndian32(2) + SyntheticImages.bigEndian32(0))
        func fcTL(width: Int, height: Int) -> [UInt8] {
            SyntheticImages.pngChunk("fcTL", SyntheticImages.bigEndian32(0) + SyntheticImages.bigEndian32(width) + SyntheticImages.bigEndian32(height)
                + Array(repeating: 0, count: 14))
        }
        let animated = try validator.validate(Data(SyntheticImages.png(width: 4, height: 4, extraChunks: [acTL, fcTL(width: 4, height: 4)])))
        #expect(animated.isAnimated && animated.frameCount == 2)
        #expect(refusal(SyntheticImages.png(width: 4, height: 4, extraChunks: [acTL, fcTL(width: 5, height: 4)]))?.stage == .structure)
    }

    @Test("a minimal JPEG is accepted; without EOI it is truncated; width 0 is a header error")
    func jpegMarkers() throws {
        #expect(try validator.validate(Data(SyntheticImages.jpeg(width: 3, height: 2))) == ImageInfo(format: .jpeg, pixelWidth: 3, pixelHeight: 2, isAnimated: false, frameCount: 1))
        guard case .truncated(.jpeg, _) = refusal(SyntheticImages.jpeg(width: 3, height: 2, endOfImage: false)) else {
            Issue.record("a JPEG without EOI must be refused as truncated")
            return
        }
        #expect(refusal(SyntheticImages.jpeg(width: 0, height: 2))?.stage == .header)
    }

    @Test("a GIF frame bomb in a 1x1 screen is refused from the header, before its data")
    func gifFrameBomb() throws {
        let bomb = SyntheticImages.gif(screen: (1, 1), frame: (65535, 65535))
        #expect(validator.inspectPrefix(Data(bomb.prefix(40))) ==
                .refused(.tooManyPixels(format: .gif, width: 65535, height: 65535, limit: validator.maxPixelCount)))
        #expect(try validator.validate(Data(SyntheticImages.gif(screen: (2, 2), frame: (2, 2)))).frameCount == 1)
        #expect(refusal(SyntheticImages.gif(screen: (2, 2), frame: (2, 2), trailer: false))?.stage == .structure)
    }

    @Test("a GIF's first frame placed beyond a 1x1 screen grows the canvas the decoder draws, and is counted so")
    func gifFrameOutsideTheScreen() throws {
        // libvips' GIF loader sizes its canvas to hold the first frame and allocates all of it:
        // a 114-row frame 26,000 pixels down a 1x1 screen costs over five gigabytes.
        let far = SyntheticImages.gif(screen: (1, 1), frame: (25_958, 114), origin: (25_183, 26_229))
        #expect(validator.inspectPrefix(Data(far.prefix(40))) ==
                .refused(.tooManyPixels(format: .gif, width: 51_141, height: 26_343, limit: validator.maxPixelCount)))
        #expect(refusal(far) == .tooManyPixels(format: .gif, width: 51_141, height: 26_343, limit: validator.maxPixelCount))

        let near = Data(SyntheticImages.gif(screen: (2, 2), frame: (2, 2), origin: (3, 1)))
        let info = try validator.validate(near)
        #expect((info.pixelWidth, info.pixelHeight) == (5, 3))
        let decoded = try PlatformImageDecoder(isolation: .inProcess).decode(near, processing: .original, maxPixelCount: validator.maxPixelCount)
        #expect((decoded.pixelWidth, decoded.pixelHeight) == (info.pixelWidth, info.pixelHeight))
    }

    @Test("a TIFF whose IFD chain loops is refused; a strip beyond the file is truncated")
    func tiffDirectories() throws {
        #expect(try validator.validate(Data(SyntheticImages.tiff(width: 4, height: 3))).pixelWidth == 4)
        guard case let .corruptStructure(.tiff, reason) = refusal(SyntheticImages.tiff(width: 4, height: 3, nextIFD: 8)) else {
            Issue.record("a looping IFD chain must be refused as corrupt")
            return
        }
        #expect(reason.contains("loops"))
        guard case .truncated(.tiff, _) = refusal(Array(SyntheticImages.tiff(width: 4, height: 3).dropLast(2))) else {
            Issue.record("a TIFF missing strip bytes must be refused as truncated")
            return
        }
    }

    @Test("an AVIF item locations box is walked within the bytes it takes: empty, zero-width and overstated extent lists are refused")
    func avifItemLocations() throws {
        #expect(try validator.validate(Data(SyntheticImages.avif())) == ImageInfo(format: .avif, pixelWidth: 1, pixelHeight: 1, isAnimated: false, frameCount: 1))
        #expect(try validator.validate(Data(SyntheticImages.avif(itemCount: 3, extentCount: 2))).pixelWidth == 1)
        // One zero-width extent per item means "the whole file": allowed.
        #expect(try validator.validate(Data(SyntheticImages.avif(offsetSize: 0, lengthSize: 0))).pixelWidth == 1)

        // 8,192 items of 65,535 extents whose records take no bytes: half a billion steps for 49 KB.
        let zeroWidth = SyntheticImages.avif(itemCount: 8_192, extentCount: 65_535, offsetSize: 0, lengthSize: 0)
        #expect(zeroWidth.count < 60_000)
        guard case let .corruptStructure(.avif, reason) = refusal(zeroWidth) else {
            Issue.record("an iloc of repeated zero-width extents must be refused as corrupt")
            return
        }
        #expect(reason.contains("65535 extents"), "\(reason)")
        guard case .corruptStructure(.avif, _) = refusal(SyntheticImages.avif(extentCount: 0)) else {
            Issue.record("an item without extents must be refused as corrupt")
            return
        }
        // A count larger than the box could hold is refused before the loop, not after running out.
        var overstated = SyntheticImages.avif(itemCount: 1, extentCount: 2)
        // The last item's extent count sits before its two 8-byte extents and the 12-byte mdat box.
        let countOffset = overstated.count - 12 - 2 * 8 - 2
        #expect(overstated[countOffset..<countOffset + 2] == [0, 2])
        overstated[countOffset] = 0xFF
        guard case let .corruptStructure(.avif, reason) = refusal(overstated) else {
            Issue.record("an extent count the box cannot hold must be refused as corrupt")
            return
        }
        #expect(reason.contains("extents in"), "\(reason)")
    }

    @Test("maxPixelCount is the limit: a lower one refuses what the default accepts")
    func configurablePixelLimit() throws {
        let png = Data(SyntheticImages.png(width: 40, height: 30))
        #expect(try validator.validate(png).pixelCount == 1200)
        #expect(throws: ImageValidationError.tooManyPixels(format: .png, width: 40, height: 30, limit: 1000)) {
            try ImageValidator(maxPixelCount: 1000).validate(png)
        }
    }

    @Test("random bytes after every kind of magic number never crash, and the prefix and whole-file verdicts agree", arguments: [
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], [0xFF, 0xD8, 0xFF], Array("GIF89a".utf8), Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBP".utf8),
        [0x00, 0x00, 0x00, 0x18] + Array("ftypheic".utf8), Array("BM".utf8), [0x49, 0x49, 0x2A, 0x00], [0x4D, 0x4D, 0x00, 0x2A],
        [0x00, 0x00, 0x01, 0x00], Array("<svg ".utf8), [0x1F, 0x8B, 0x08, 0x00],
    ] as [[UInt8]])
    func randomTails(magic: [UInt8]) {
        var generator = SeededRandom(seed: UInt64(magic.count) &* 0x9E37_79B9)
        var accepted = 0
        for length in stride(from: 0, through: 600, by: 3) {
            let data = Data(magic + (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let whole = try? validator.validate(data)
            let prefix = validator.inspectPrefix(data)
            // The two must agree: a prefix refused is a file refused, and a file accepted had an
            // acceptable prefix with the same facts.
            if case .refused = prefix { #expect(whole == nil, "\(data.count) bytes: prefix refused, file accepted") }
            if let whole {
                accepted += 1
                if case let .accepted(info) = prefix {
                    #expect(info.pixelWidth == whole.pixelWidth && info.pixelHeight == whole.pixelHeight)
                } else {
                    Issue.record("\(data.count) bytes: file accepted, prefix \(prefix)")
                }
            }
        }
        // Random bytes are almost never a whole image.
        #expect(accepted <= 2, "\(accepted) random files accepted")
    }
}
