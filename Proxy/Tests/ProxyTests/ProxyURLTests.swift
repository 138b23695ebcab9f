import Foundation
import ImageFormats
import ImageProxy
import LoopbackOrigin
import Testing

/// Which URLs the proxy serves: signed ones, unsigned ones only when allowed, sources on the
/// allowlist and on public addresses only.
@Suite("imagecache-proxy URLs")
struct ProxyURLTests {
    static let image = gradientPNG(width: 320, height: 240)

    static func serveImage(_: OriginRequest) -> OriginResponse {
        OriginResponse(headers: headers(("Content-Type", "image/png"), ("Cache-Control", "max-age=600")), body: image)
    }

    @Test("a signed URL is served: the thumbnail at its size, as JPEG, with a strong ETag and Cache-Control")
    func signedURL() async throws {
        let fixture = try await ProxyFixture(handler: Self.serveImage)
        let response = try await HTTPGet.get(try fixture.signed("/a.png", "fit:64x64"))
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "image/jpeg")
        let info = try ImageValidator().validate(response.body)
        #expect(info.format == .jpeg)
        #expect(info.pixelWidth == 64 && info.pixelHeight == 48)
        let etag = try #require(response.header("ETag"))
        #expect(etag.hasPrefix("\"") && !etag.hasPrefix("W/"))
        let cacheControl = try #require(response.header("Cache-Control"))
        #expect(cacheControl.hasPrefix("public, max-age="))
        let maxAge = try #require(Int(cacheControl.split(separator: "=").last ?? ""))
        #expect((590...600).contains(maxAge))
        // The original, as the source sent it.
        let original = try await HTTPGet.get(try fixture.signed("/a.png", "original"))
        #expect(original.status == 200 && original.body == Self.image && original.header("Content-Type") == "image/png")
        #expect(await fixture.stop() == 0)
    }

    @Test("an unsigned URL is refused (403) unless the proxy allows unsigned URLs")
    func unsignedURL() async throws {
        let strict = try await ProxyFixture(handler: Self.serveImage)
        #expect(try await HTTPGet.get(try strict.unsigned("/a.png")).status == 403)
        #expect(strict.originHits("/a.png") == 0)
        _ = await strict.stop()
        let open = try await ProxyFixture(arguments: ["--allow-unsigned"], handler: Self.serveImage)
        #expect(try await HTTPGet.get(try open.unsigned("/a.png")).status == 200)
        _ = await open.stop()
    }

    @Test("a bad signature is refused with 403 and nothing is fetched")
    func badSignature() async throws {
        let fixture = try await ProxyFixture(handler: Self.serveImage)
        let good = try fixture.signed("/a.png", "fit:64x64").path
        // The same signature over another processing.
        let forged = good.replacingOccurrences(of: "/fit:64x64/", with: "/fit:2048x2048/")
        #expect(try await HTTPGet.get(fixture.proxy.url(forged)).status == 403)
        // A signature that is not one at all.
        let garbage = "/AAAA" + good.drop { $0 != "/" }.dropFirst().drop { $0 != "/" }
        #expect(try await HTTPGet.get(fixture.proxy.url(garbage)).status == 403)
        #expect(fixture.originHits("/a.png") == 0)
        _ = await fixture.stop()
    }

    @Test("a malformed path or processing is a 400")
    func malformed() async throws {
        let fixture = try await ProxyFixture(arguments: ["--allow-unsigned"], handler: Self.serveImage)
        #expect(try await HTTPGet.get(fixture.proxy.url("/unsigned/fit:64x64")).status == 400)
        #expect(try await HTTPGet.get(fixture.proxy.url("/unsigned/fit:0x64/aHR0cDovL2E")).status == 400)
        #expect(try await HTTPGet.get(fixture.proxy.url("/unsigned/spin:90/aHR0cDovL2E")).status == 400)
        _ = await fixture.stop()
    }

    @Test("a host not on the allowlist is refused with 403 and nothing is fetched")
    func hostNotAllowed() async throws {
        let fixture = try await ProxyFixture(arguments: ["--allow-host", "images.example.com"], handler: Self.serveImage)
        let response = try await HTTPGet.get(try fixture.signed("/a.png"))
        #expect(response.status == 403)
        #expect(String(decoding: response.body, as: UTF8.self).contains("allowlist"))
        #expect(fixture.originHits("/a.png") == 0)
        _ = await fixture.stop()
    }

    @Test("a source on a loopback address is refused unless private sources are allowed")
    func privateAddressRefused() async throws {
        let fixture = try await ProxyFixture(allowPrivate: false, handler: Self.serveImage)
        let response = try await HTTPGet.get(try fixture.signed("/a.png"))
        #expect(response.status == 403)
        #expect(String(decoding: response.body, as: UTF8.self).contains("127.0.0.1"))
        // By name too: every address `localhost` resolves to is checked.
        let byName = URL(string: "http://localhost:\(fixture.origin.port)/a.png")!
        let path = ProxyRequestPath.path(
            for: byName, processing: ProcessingSpec(processing: nil), signer: URLSigner(key: Data(ProxyProcess.key.utf8)))
        #expect(try await HTTPGet.get(fixture.proxy.url(path)).status == 403)
        #expect(fixture.originHits("/a.png") == 0)
        _ = await fixture.stop()
    }
}
