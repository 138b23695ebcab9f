import CacheStorage
import Foundation
import ImageFormats
import LoopbackOrigin
import Synchronization
import Testing

/// The proxy's HTTP caching, downstream and upstream: 304 to `If-None-Match`, the source's
/// `no-store` and short `max-age` honoured, revalidation with the source.
@Suite("imagecache-proxy caching")
struct ProxyCachingTests {
    static let image = gradientPNG(width: 320, height: 240)

    @Test("If-None-Match with the answer's ETag gets a 304 with the same ETag and no body")
    func notModified() async throws {
        let fixture = try await ProxyFixture { _ in
            OriginResponse(headers: headers(("Content-Type", "image/png"), ("Cache-Control", "max-age=600")), body: Self.image)
        }
        let url = try fixture.signed("/a.png")
        let first = try await HTTPGet.get(url)
        let etag = try #require(first.header("ETag"))
        let second = try await HTTPGet.get(url, headers: [("If-None-Match", etag)])
        #expect(second.status == 304)
        #expect(second.header("ETag") == etag)
        #expect(second.body.isEmpty)
        // Another tag: the image.
        let other = try await HTTPGet.get(url, headers: [("If-None-Match", "\"other\"")])
        #expect(other.status == 200 && other.body == first.body)
        #expect(fixture.originHits("/a.png") == 1)
        _ = await fixture.stop()
    }

    @Test("a no-store source is fetched for every request and answered with no-store")
    func noStoreHonoured() async throws {
        let fixture = try await ProxyFixture { _ in
            OriginResponse(headers: headers(("Content-Type", "image/png"), ("Cache-Control", "no-store")), body: Self.image)
        }
        let url = try fixture.signed("/a.png")
        for _ in 0..<2 {
            let response = try await HTTPGet.get(url)
            #expect(response.status == 200)
            #expect(response.header("Cache-Control") == "no-store")
        }
        #expect(fixture.originHits("/a.png") == 2)
        _ = await fixture.stop()
    }

    @Test("a short max-age is passed on as what remains of it, and once it passes the source is revalidated (304)")
    func shortMaxAgeRevalidated() async throws {
        let fixture = try await ProxyFixture { request in
            if request.header("If-None-Match") == "\"v1\"" {
                return OriginResponse(status: 304, headers: headers(("ETag", "\"v1\""), ("Cache-Control", "max-age=1")))
            }
            return OriginResponse(
                headers: headers(("Content-Type", "image/png"), ("Cache-Control", "max-age=1"), ("ETag", "\"v1\"")),
                body: Self.image)
        }
        let url = try fixture.signed("/a.png")
        let first = try await HTTPGet.get(url)
        #expect(first.status == 200)
        let maxAge = try #require(first.header("Cache-Control")?.split(separator: "=").last.flatMap { Int($0) })
        #expect(maxAge <= 1)
        try await Task.sleep(for: .milliseconds(2100))
        let second = try await HTTPGet.get(url)
        #expect(second.status == 200)
        #expect(second.body == first.body)
        let conditional = fixture.origin.requests.filter { $0.path == "/a.png" && $0.header("If-None-Match") == "\"v1\"" }
        #expect(conditional.count == 1)
        _ = await fixture.stop()
    }

    @Test("a client that accepts only WebP gets a WebP thumbnail, kept on disk as a variant of its own beside the JPEG")
    func negotiatedFormatStored() async throws {
        let fixture = try await ProxyFixture { _ in
            OriginResponse(headers: headers(("Content-Type", "image/png"), ("Cache-Control", "max-age=600")), body: Self.image)
        }
        let url = try fixture.signed("/a.png")
        for _ in 0..<2 {
            let webp = try await HTTPGet.get(url, headers: [("Accept", "image/webp")])
            #expect(webp.status == 200 && webp.header("Content-Type") == "image/webp" && webp.header("Vary") == "Accept")
            #expect((try? ImageValidator().validate(webp.body))?.format == .webp)
            let plain = try await HTTPGet.get(url)
            #expect(plain.header("Content-Type") == "image/jpeg")
            #expect(plain.header("ETag") != webp.header("ETag"))
        }
        #expect(fixture.originHits("/a.png") == 1)
        #expect(await fixture.proxy.stop() == 0)
        let store = try PersistentStore(directory: fixture.folder.url)
        defer { store.close() }
        let variants = try store.entries(matching: EntryQuery(isDerived: true))
        #expect(Set(variants.compactMap(\.attributes.format)) == ["jpeg", "webp"], "\(variants.map(\.key))")
        await fixture.origin.stop()
    }
}
