import Foundation
import ImageCache
import Testing

/// Sniffing names the format from magic bytes, and names what non-images are.
@Suite("Format sniffing")
struct FormatSniffingTests {
    let validator = ImageValidator()

    @Test("magic bytes name each format", arguments: [
        ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], ImageFormat.png),
        ([0xFF, 0xD8, 0xFF, 0xE0], .jpeg),
        (Array("GIF87a".utf8), .gif),
        (Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBP".utf8), .webp),
        ([0, 0, 0, 0x18] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8), .heic),
        ([0, 0, 0, 0x18] + Array("ftypmif1".utf8) + [0, 0, 0, 0] + Array("mif1avif".utf8), .avif),
        (Array("BM".utf8) + Array(repeating: 0, count: 12) + [40, 0, 0, 0], .bmp),
        ([0x4D, 0x4D, 0x00, 0x2A], .tiff),
        ([0, 0, 1, 0, 1, 0], .ico),
        (Array("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\">".utf8), .svg),
    ] as [([UInt8], ImageFormat)])
    func magicBytes(bytes: [UInt8], format: ImageFormat) {
        #expect(validator.sniff(bytes) == format)
        #expect(validator.sniff(Data(bytes)) == format)
    }

    @Test("non-images are refused at the sniff stage with what they are", arguments: [
        ("", "empty"),
        ("<!DOCTYPE html><html><body>404</body></html>", "HTML"),
        ("  {\"error\": \"not found\"}", "JSON"),
        ("<?xml version=\"1.0\"?><Error><Code>AccessDenied</Code></Error>", "<Error>"),
        ("Just some words in a text body, long enough to judge.", "plain text"),
        ("%PDF-1.7 and then some more bytes to be long enough", "PDF"),
    ])
    func nonImages(body: String, expected: String) {
        do {
            _ = try validator.validate(Data(body.utf8))
            Issue.record("\(body) was accepted")
        } catch {
            #expect(error.stage == .sniff)
            guard case let .notAnImage(reason) = error else {
                Issue.record("\(error) is not .notAnImage")
                return
            }
            #expect(reason.contains(expected), "\(reason)")
        }
    }

    @Test("recognised but unsupported formats are named", arguments: [
        (Array("qoif".utf8) + Array(repeating: 0, count: 30), "QOI"),
        (Array("P6\n3 2\n255\n".utf8) + Array(repeating: 0, count: 18), "Netpbm"),
        ([0xFF, 0x0A, 0xFA, 0x7F] + Array(repeating: 0, count: 30), "JPEG XL"),
        ([0x49, 0x49, 0x2B, 0x00] + Array(repeating: 0, count: 30), "BigTIFF"),
    ] as [([UInt8], String)])
    func unsupported(bytes: [UInt8], name: String) {
        #expect(validator.sniff(bytes) == nil)
        guard case let .refused(.unsupportedFormat(found)) = validator.inspectPrefix(Data(bytes)) else {
            Issue.record("\(name) must be refused as unsupported")
            return
        }
        #expect(found.contains(name))
    }

    @Test("a gzip-compressed PNG and an MP4 are explained")
    func wrappedOrOtherMedia() {
        let mp4 = Data([0, 0, 0, 0x18] + Array("ftypisom".utf8) + [0, 0, 2, 0] + Array("isomiso2".utf8) + Array(repeating: 0, count: 16))
        guard case let .refused(.notAnImage(reason)) = validator.inspectPrefix(mp4) else {
            Issue.record("an MP4 must be refused as not an image")
            return
        }
        #expect(reason.contains("isom"))
    }
}
