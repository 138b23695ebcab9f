import Foundation
import LoopbackOrigin
import TestSupport
import Testing

@Suite("warm")
struct WarmTests {
    /// An origin with images to cache, an error page served as 200, an image that may not be
    /// stored, and a missing path.
    static func origin() async throws -> LoopbackOrigin {
        let png = GeneratedImages.png(seed: 1)
        let other = GeneratedImages.png(seed: 2, size: 48)
        return try await LoopbackOrigin.start { request in
            let cacheable = [HeaderLine("Cache-Control", "max-age=3600"), HeaderLine("ETag", "\"\(request.path)\"")]
            switch request.path {
            case let path where path.hasPrefix("/img/") && path.hasSuffix(".png"):
                return OriginResponse(headers: cacheable + [HeaderLine("Content-Type", "image/png")], body: png)
            case let path where path.hasPrefix("/img/"):
                return OriginResponse(headers: cacheable + [HeaderLine("Content-Type", "image/png")], body: other)
            case "/error-page.png":
                return OriginResponse(
                    headers: [HeaderLine("Content-Type", "text/html")], body: Data("<html><body>Oops</body></html>".utf8))
            case "/no-store.png":
                return OriginResponse(headers: [HeaderLine("Cache-Control", "no-store")], body: png)
            default:
                return OriginResponse(status: 404, headers: [HeaderLine("Content-Type", "text/plain")], body: Data("not found".utf8))
            }
        }
    }

    @Test("warm caches what it can and reports refusals and failures; a second run finds them cached")
    func warm() async throws {
        let origin = try await Self.origin()
        let cache = TemporaryDirectory("warm-cache")
        let list = cache.url.appendingPathComponent("urls.txt")
        let images = (1...12).map { origin.url("/img/\($0).\($0 % 3 == 0 ? "jpg" : "png")").absoluteString }
        let lines = ["# feed", ""] + images + [
            origin.url("/error-page.png").absoluteString, origin.url("/no-store.png").absoluteString,
            origin.url("/missing.png").absoluteString, "not a url",
        ]
        try Data(lines.joined(separator: "\n").utf8).write(to: list)
        let store = cache.url.appendingPathComponent("store").path

        let first = try await Cachectl.run(["warm", "--urls", list.path, "--concurrency", "4", "--json", "--path", store])
        #expect(first.status == 1, "refusals and failures are problems: \(first)")
        let report = try first.json(WarmJSON.self)
        #expect(report.succeeded == 12)
        #expect(report.fetched == 12)
        #expect(Set(report.refused.map(\.url)) == [
            origin.url("/error-page.png").absoluteString, origin.url("/no-store.png").absoluteString, "not a url",
        ])
        #expect(report.refused.first { $0.url.hasSuffix("/error-page.png") }?.reason.contains("not an image") == true)
        #expect(report.failed.map(\.url) == [origin.url("/missing.png").absoluteString])
        #expect(report.failed.first?.reason.contains("404") == true)

        let cached = try await Cachectl.run(["list", "--json", "--path", store]).json([EntryRow].self)
        #expect(Set(cached.map(\.key)) == Set(images))
        #expect(cached.allSatisfy { $0.freshness == "fresh" && $0.etag != nil && $0.width != nil })

        let again = try await Cachectl.run(["warm", "--urls", list.path, "--json", "--path", store])
        let second = try again.json(WarmJSON.self)
        #expect(second.alreadyCached == 12)
        #expect(second.fetched == 0)
        let human = try await Cachectl.run(["warm", "--urls", list.path, "--path", store])
        #expect(human.output.hasPrefix("12 cached (0 fetched, 0 revalidated, 12 already fresh"), "\(human.output)")
        await origin.stop()
    }
}
