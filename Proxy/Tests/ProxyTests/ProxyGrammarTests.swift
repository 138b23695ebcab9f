import Foundation
import ImageDecoding
import Testing

@testable import ImageProxy

/// The URL grammar, signatures, address classes and format negotiation, as plain values.
@Suite("imagecache-proxy grammar")
struct ProxyGrammarTests {
    @Test("each processing parses to what it says and writes back the same", arguments: [
        ("original", nil as ImageProcessing?, nil as EncodedFormat?),
        ("fit:256x128", .resized(width: 256, height: 128, mode: .fit), nil),
        ("fill:64x64,webp", .resized(width: 64, height: 64, mode: .fill), .webp),
        ("max:512,png", .thumbnail(maxPixelSize: 512), .png),
    ])
    func processing(text: String, processing: ImageProcessing?, format: EncodedFormat?) throws {
        let spec = try ProcessingSpec(parsing: Substring(text))
        #expect(spec.processing == processing)
        #expect(spec.format == format)
        #expect(spec.text == text)
    }

    @Test("sizes out of range, unknown operations and formats are refused", arguments: [
        "fit:0x10", "fit:10x4097", "max:-1", "max:", "fit:10", "rotate:90", "fit:10x10,gif", "fit:10x10,jpeg,png", "", "fit:１0x10",
    ])
    func badProcessing(text: String) {
        #expect(throws: ProxyRequestError.self) { try ProcessingSpec(parsing: Substring(text)) }
    }

    @Test("a signed path round-trips, and any change to it breaks the signature")
    func signatures() throws {
        let signer = URLSigner(key: Data("key".utf8))
        let source = URL(string: "https://images.example.com/a/b.jpg?size=large")!
        let path = ProxyRequestPath.path(for: source, processing: try ProcessingSpec(parsing: "fit:10x10"), signer: signer)
        let parsed = try ProxyRequestPath(parsing: Substring(path))
        #expect(parsed.source == source)
        #expect(signer.isValid(parsed.signature, for: parsed.signedPart))
        #expect(!URLSigner(key: Data("other".utf8)).isValid(parsed.signature, for: parsed.signedPart))
        #expect(!signer.isValid(parsed.signature, for: parsed.signedPart.replacingOccurrences(of: "10x10", with: "10x11")))
        #expect(!signer.isValid("not base64!", for: parsed.signedPart))
    }

    @Test("sources that are not http or https URLs are refused")
    func badSources() {
        for source in ["file:///etc/passwd", "ftp://example.com/a.jpg", "not a url", "http://"] {
            let encoded = Base64URL.encode(Data(source.utf8))
            #expect(throws: ProxyRequestError.self, "\(source)") { try ProxyRequestPath(parsing: Substring("/unsigned/original/\(encoded)")) }
        }
    }

    @Test("internal addresses are recognised, whatever family carries them")
    func addressClasses() {
        func v4(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) -> SourceAddress { SourceAddress(bytes: [a, b, c, d]) }
        func v6(_ words: [UInt16]) -> SourceAddress { SourceAddress(bytes: words.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }) }
        let internalAddresses = [
            v4(127, 0, 0, 1), v4(10, 1, 2, 3), v4(172, 16, 0, 1), v4(172, 31, 255, 255), v4(192, 168, 1, 1),
            v4(169, 254, 169, 254), v4(100, 64, 0, 1), v4(0, 0, 0, 0), v4(224, 0, 0, 1), v4(255, 255, 255, 255),
            v6([0, 0, 0, 0, 0, 0, 0, 1]), v6([0, 0, 0, 0, 0, 0, 0, 0]), v6([0xFE80, 0, 0, 0, 0, 0, 0, 1]),
            v6([0xFD00, 0, 0, 0, 0, 0, 0, 1]), v6([0, 0, 0, 0, 0, 0xFFFF, 0x7F00, 0x0001]),
            v6([0x64, 0xFF9B, 0, 0, 0, 0, 0x0A00, 0x0001]), v6([0xFF02, 0, 0, 0, 0, 0, 0, 1]),
        ]
        for address in internalAddresses { #expect(address.isInternal, "\(address)") }
        let publicAddresses = [
            v4(93, 184, 216, 34), v4(172, 32, 0, 1), v4(8, 8, 8, 8), v6([0x2606, 0x2800, 0x220, 1, 0x248, 0x1893, 0x25C8, 0x1946]),
            v6([0, 0, 0, 0, 0, 0xFFFF, 0x5DB8, 0xD822]),
        ]
        for address in publicAddresses { #expect(!address.isInternal, "\(address)") }
    }

    @Test("the pipeline's own format is kept when Accept allows JPEG and PNG; else the first format Accept allows")
    func negotiation() {
        #expect(OutputFormat.requested(explicit: nil, accept: nil) == nil)
        #expect(OutputFormat.requested(explicit: nil, accept: "image/avif,image/webp,*/*") == nil)
        #expect(OutputFormat.requested(explicit: nil, accept: "image/webp") == .webp)
        #expect(OutputFormat.requested(explicit: nil, accept: "image/*;q=0.8, image/jpeg;q=0") == .webp)
        #expect(OutputFormat.requested(explicit: nil, accept: "image/png, image/jpeg;q=0.5") == nil)
        #expect(OutputFormat.requested(explicit: nil, accept: "image/jpeg") == .jpeg)
        #expect(OutputFormat.requested(explicit: nil, accept: "text/html") == nil)
        #expect(OutputFormat.requested(explicit: .png, accept: "image/jpeg") == .png)
    }

    @Test("the allowlist takes exact names and subdomain patterns")
    func allowlist() {
        let policy = SourcePolicy(allowedHosts: ["images.example.com", "*.cdn.example.com"])
        #expect(policy.allows(host: "images.example.com"))
        #expect(policy.allows(host: "IMAGES.example.com"))
        #expect(policy.allows(host: "a.cdn.example.com"))
        #expect(!policy.allows(host: "cdn.example.com"))
        #expect(!policy.allows(host: "evilcdn.example.com"))
        #expect(!policy.allows(host: "images.example.com.evil.net"))
        #expect(SourcePolicy().allows(host: "anything.example"))
    }
}
