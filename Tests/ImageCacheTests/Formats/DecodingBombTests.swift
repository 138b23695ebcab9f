import Foundation
import LoopbackOrigin
import TestSupport
import Testing

@testable import ImageFormats

/// Files a few kilobytes long that make a decoder build or do far more than they declare: a PNG's
/// compressed metadata, which decoders inflate with the header, a HEIF grid that builds more
/// than its `ispe` says, and a progressive JPEG of thousands of scans. Each is made here and refused with a typed error before any decoder runs.
@Suite("Decoding bombs are refused")
struct DecodingBombTests {
    let validator = ImageValidator()

    /// A 16×16 PNG with `chunks` before its image data.
    static func png(with chunks: [[UInt8]]) -> Data {
        var bytes = [UInt8](PNGEncoder.encode(width: 16, height: 16) { x, y in (UInt8(x * 16), UInt8(y * 16), 9) })
        // After the signature (8 bytes) and IHDR (25 bytes).
        bytes.insert(contentsOf: chunks.joined(), at: 33)
        return Data(bytes)
    }

    /// A `zTXt` chunk whose text inflates to `zeroCount` zero bytes.
    static func compressedText(zeroCount: Int) -> [UInt8] {
        SyntheticImages.pngChunk("zTXt", Array("Comment".utf8) + [0, 0] + ZeroRunZlib.stream(zeroCount: zeroCount))
    }

    @Test("the zero-run zlib stream the bombs are made of inflates to exactly its zeros")
    func zeroRunStream() throws {
        for count in [0, 1, 257, 258, 259, 1_000, 65_536] {
            let stream = ZeroRunZlib.stream(zeroCount: count)
            var inflater = Inflater(input: stream, start: 2, end: stream.count, outputLimit: count)
            try inflater.run()
            #expect(inflater.output == Array(repeating: 0, count: count), "\(count)")
            let adler = stream[inflater.inputOffset...].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            #expect(adler == PNGImageData.adler32(inflater.output), "\(count)")
        }
    }

    @Test("a PNG whose zTXt, iTXt or iCCP chunks inflate past 1 MiB together is refused; a small one is not")
    func compressedMetadata() throws {
        let bomb = Self.png(with: [Self.compressedText(zeroCount: 16 << 20)])
        #expect(bomb.count < 128 << 10)
        for check in [validator.validate, validator.validateForDecoding] {
            #expect {
                try check(bomb)
            } throws: { error in
                guard case let .refusedContent(format, reason) = error as? ImageValidationError else { return false }
                return format == .png && reason.contains("inflate to more than 1048576 bytes together")
            }
        }
        let modest = Self.png(with: [Self.compressedText(zeroCount: 100_000)])
        #expect(try validator.validateForDecoding(modest).pixelWidth == 16)

        // Chunks under the limit one by one, over it together.
        let profile = SyntheticImages.pngChunk("iCCP", Array("ICC".utf8) + [0, 0] + ZeroRunZlib.stream(zeroCount: 600_000))
        let text = SyntheticImages.pngChunk(
            "iTXt", Array("Comment".utf8) + [0, 1, 0] + Array("en".utf8) + [0, 0] + ZeroRunZlib.stream(zeroCount: 600_000))
        #expect(try validator.validate(Self.png(with: [profile])).pixelWidth == 16)
        #expect(try validator.validate(Self.png(with: [text])).pixelWidth == 16)
        #expect(throws: ImageValidationError.self) { try validator.validate(Self.png(with: [profile, text])) }
        // The limit is the validator's to set.
        #expect(throws: ImageValidationError.self) {
            try ImageValidator(inflatedMetadataByteLimit: 50_000).validate(modest)
        }
    }

    @Test("a PNG reports the bytes a decoded pixel takes: 16-bit RGBA 8, palette 4, 8-bit grey 1")
    func pngBytesPerPixel() throws {
        func png(bitDepth: UInt8, colorType: UInt8, extra: [[UInt8]] = []) -> Data {
            var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            bytes += SyntheticImages.pngChunk("IHDR", SyntheticImages.bigEndian32(2) + SyntheticImages.bigEndian32(2) + [bitDepth, colorType, 0, 0, 0])
            for chunk in extra { bytes += chunk }
            bytes += SyntheticImages.pngChunk("IDAT", [0x78, 0x01, 0x01, 0x00, 0x00, 0xFF, 0xFF])
            bytes += SyntheticImages.pngChunk("IEND", [])
            return Data(bytes)
        }
        #expect(try validator.validate(png(bitDepth: 16, colorType: 6)).bytesPerPixel == 8)
        #expect(try validator.validate(png(bitDepth: 8, colorType: 2)).bytesPerPixel == 3)
        #expect(try validator.validate(png(bitDepth: 8, colorType: 3, extra: [SyntheticImages.pngChunk("PLTE", [0, 0, 0])])).bytesPerPixel == 4)
        #expect(try validator.validate(png(bitDepth: 1, colorType: 0)).bytesPerPixel == 1)
    }

    @Test("a TIFF reports the bytes a decoded pixel takes from its samples: 16-bit RGB 6, none declared 1")
    func tiffBytesPerPixel() throws {
        #expect(try validator.validate(Data(SyntheticImages.tiff(width: 2, height: 2, samples: (3, 16)))).bytesPerPixel == 6)
        #expect(try validator.validate(Data(SyntheticImages.tiff(width: 2, height: 2))).bytesPerPixel == 1)
    }

    @Test("a HEIF grid that builds more than its ispe declares, or more than the pixel limit, is refused")
    func gridOutput() throws {
        // As found: ispe 100x100, grid 16000x16000 from one tile named 256 times.
        let found = Data(SyntheticImages.avifGrid(
            output: (16_000, 16_000), declared: (100, 100), rows: 16, columns: 16, tile: (1000, 1000)))
        #expect(found.count < 4096)
        #expect(throws: ImageValidationError.tooManyPixels(format: .avif, width: 16_000, height: 16_000, limit: 100_000_000)) {
            try validator.validate(found)
        }
        let larger = Data(SyntheticImages.avifGrid(output: (1000, 1000), declared: (100, 100), rows: 2, columns: 2, tile: (500, 500)))
        #expect(throws: ImageValidationError.refusedContent(
            format: .avif, reason: "its grid item 1 builds 1000x1000 pixels, more than the 100x100 its ispe declares")) {
            try validator.validateForDecoding(larger)
        }
        let consistent = Data(SyntheticImages.avifGrid(output: (1000, 1000), declared: (1000, 1000), rows: 2, columns: 2, tile: (500, 500)))
        #expect(try validator.validateForDecoding(consistent).pixelWidth == 1000)

        // An overlay's canvas is held the same way.
        let overlay = Data(SyntheticImages.avifGrid(
            output: (1000, 1000), declared: (100, 100), rows: 1, columns: 1, tile: (100, 100), references: 3, overlay: true))
        #expect(throws: ImageValidationError.refusedContent(
            format: .avif, reason: "its iovl item 1 builds 1000x1000 pixels, more than the 100x100 its ispe declares")) {
            try validator.validate(overlay)
        }
        let fittingOverlay = Data(SyntheticImages.avifGrid(
            output: (100, 100), declared: (100, 100), rows: 1, columns: 1, tile: (100, 100), references: 3, overlay: true))
        #expect(try validator.validate(fittingOverlay).pixelWidth == 100)
    }

    @Test("a HEIF grid of too many tiles, or of tiles holding more than the pixel limit together, is refused")
    func gridInputs() throws {
        let manyTiles = Data(SyntheticImages.avifGrid(output: (4096, 4096), declared: (4096, 4096), rows: 64, columns: 64, tile: (64, 64)))
        #expect {
            try validator.validate(manyTiles)
        } throws: { error in
            guard case let .refusedContent(format, reason) = error as? ImageValidationError else { return false }
            return format == .avif && reason.contains("combines 4096 images, over the limit of 1024")
        }
        // One 9000x9000 tile named four times: each under the limit, 324 Mpx together.
        let heavyTiles = Data(SyntheticImages.avifGrid(output: (9000, 9000), declared: (9000, 9000), rows: 2, columns: 2, tile: (9000, 9000)))
        #expect {
            try validator.validate(heavyTiles)
        } throws: { error in
            guard case let .refusedContent(format, reason) = error as? ImageValidationError else { return false }
            return format == .avif && reason.contains("hold 324000000 pixels together")
        }
    }

    @Test("a progressive JPEG of more scans than 64 per component is refused; one of 64 is not")
    func progressiveScans() throws {
        // 63 AC scans after the DC scan: 64 passes over the one component.
        let allowed = Data(SyntheticImages.progressiveJPEG(width: 2000, height: 2000, acScans: 63))
        #expect(try validator.validateForDecoding(allowed).pixelWidth == 2000)
        // Thousands of scans of a few bytes each: every one a pass over 62,500 blocks.
        let bomb = Data(SyntheticImages.progressiveJPEG(width: 2000, height: 2000, acScans: 3_000))
        #expect(bomb.count < 64 << 10)
        for check in [validator.validate, validator.validateForDecoding] {
            #expect {
                try check(bomb)
            } throws: { error in
                guard case let .refusedContent(format, reason) = error as? ImageValidationError else { return false }
                return format == .jpeg && reason.contains("65 times, over the limit of 64")
            }
        }
    }
}
