import CacheStorage
import Foundation
import LoopbackOrigin
import Synchronization
import Testing

/// What a hostile or overloaded world does to the proxy: slow sources end at their bound with a
/// 504 and free their slot, a full queue answers 503, a full disk does not stop it serving, a
/// hostile image does not take it down, and SIGTERM leaves a closed, complete store.
@Suite("imagecache-proxy under stress")
struct ProxyRobustnessTests {
    static let image = gradientPNG(width: 320, height: 240)

    /// One fetch at a time, a 2 s deadline, 1 KiB/s over half-second windows.
    static let tightBounds = [
        "--max-concurrent-fetches", "1", "--fetch-deadline", "2", "--minimum-transfer-rate", "1024",
        "--transfer-rate-window", "0.5",
    ]

    /// Made once: built for every request, it held the quick request's answer past its bound in
    /// a loaded run.
    static let big = gradientPNG(width: 600, height: 600)

    static func slowOrigin(_ request: OriginRequest) -> OriginResponse {
        switch request.path {
        case "/dribble.png":
            // 400 bytes/s.
            return OriginResponse(
                headers: headers(("Content-Type", "image/png")), body: Self.big,
                bodyPacing: BodyPacing(chunkBytes: 40, interval: .milliseconds(100)))
        case "/stall.png":
            // The first 8 KB, then nothing for an hour.
            return OriginResponse(
                headers: headers(("Content-Type", "image/png")), body: Self.big,
                bodyPacing: BodyPacing(chunkBytes: 8192, interval: .seconds(3600)))
        default:
            return OriginResponse(headers: headers(("Content-Type", "image/png"), ("Cache-Control", "max-age=600")), body: image)
        }
    }

    @Test("a dribbling and a stalling source each end with a 504 at their bound, and the one fetch slot serves the next request",
          .timeLimit(.minutes(1)), arguments: ["/dribble.png", "/stall.png"])
    func slowSourceEndsAt504(path: String) async throws {
        // Both images are made before the proxy starts: made on first use, inside the origin's
        // handler, the quick image's making counted against its own fetch deadline.
        _ = (Self.image.count, Self.big.count)
        let fixture = try await ProxyFixture(arguments: Self.tightBounds, handler: Self.slowOrigin)
        let started = ContinuousClock.now
        let slow = try await HTTPGet.get(try fixture.signed(path))
        #expect(slow.status == 504)
        #expect(ContinuousClock.now - started < .seconds(30))
        let next = try await HTTPGet.get(try fixture.signed("/quick.png"))
        #expect(next.status == 200, "\(String(decoding: next.body, as: UTF8.self))")
        #expect(await fixture.stop() == 0)
    }

    @Test("past the queue limit the proxy answers 503 with Retry-After", .timeLimit(.minutes(1)))
    func queueOverflow() async throws {
        let release = Mutex(false)
        let fixture = try await ProxyFixture(arguments: ["--max-concurrent-loads", "1", "--queue-limit", "1"]) { _ in
            while !release.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(20)) }
            return OriginResponse(headers: headers(("Content-Type", "image/png"), ("Cache-Control", "max-age=600")), body: Self.image)
        }
        let urls = try (0..<4).map { try fixture.signed("/held-\($0).png") }
        let requests = urls.map { url in Task { try await HTTPGet.get(url) } }
        // One is working (held by the origin), one waits its turn; the other two are turned away at once.
        for _ in 0..<400 where fixture.origin.requests.isEmpty { try await Task.sleep(for: .milliseconds(25)) }
        try await Task.sleep(for: .milliseconds(500))
        release.withLock { $0 = true }
        let answers = try await requests.asyncMap { try await $0.value }
        let refused = answers.filter { $0.status == 503 }
        #expect(refused.count == 2)
        #expect(refused.allSatisfy { $0.header("Retry-After") == "1" })
        #expect(answers.filter { $0.status == 200 }.count == 2)
        _ = await fixture.stop()
    }

    @Test("a hostile image from the source is refused with a 502 and the proxy keeps serving", .timeLimit(.minutes(1)))
    func hostileImage() async throws {
        // A PNG header that promises 100,000 × 100,000 pixels; a PNG cut off after its header;
        // an HTML page sent as an image.
        let huge = {
            var png = gradientPNG(width: 16, height: 16)
            png.replaceSubrange(16..<24, with: [0, 1, 0x86, 0xA0, 0, 1, 0x86, 0xA0])
            return png
        }()
        let truncated = gradientPNG(width: 300, height: 300).prefix(200)
        let fixture = try await ProxyFixture { request in
            let body: Data =
                switch request.path {
                case "/huge.png": huge
                case "/truncated.png": Data(truncated)
                case "/html.png": Data("<html><body>not an image</body></html>".utf8)
                default: Self.image
                }
            return OriginResponse(headers: headers(("Content-Type", "image/png"), ("Cache-Control", "max-age=600")), body: body)
        }
        for path in ["/huge.png", "/truncated.png", "/html.png"] {
            let response = try await HTTPGet.get(try fixture.signed(path))
            #expect(response.status == 502, "\(path)")
        }
        #expect(try await HTTPGet.get(fixture.proxy.url("/healthz")).status == 200)
        #expect(try await HTTPGet.get(try fixture.signed("/fine.png")).status == 200)
        #expect(await fixture.stop() == 0)
    }

    @Test("on a full cache disk the proxy keeps serving images", .enabled(if: SmallDisk.isAvailable), .timeLimit(.minutes(1)))
    func fullDisk() async throws {
        let disk = try SmallDisk(bytes: 8 * 1024 * 1024)
        let fixture = try await ProxyFixture(cacheFolder: disk.url) { _ in
            OriginResponse(headers: headers(("Content-Type", "image/png"), ("Cache-Control", "max-age=600")), body: Self.image)
        }
        disk.fill()
        for index in 0..<6 {
            let response = try await HTTPGet.get(try fixture.signed("/full-\(index).png"))
            #expect(response.status == 200)
        }
        #expect(try await HTTPGet.get(fixture.proxy.url("/healthz")).status == 200)
        #expect(await fixture.stop() == 0)
    }

    @Test("SIGTERM right after a burst of first requests leaves a closed store holding every original and thumbnail",
          .timeLimit(.minutes(1)))
    func gracefulShutdown() async throws {
        let fixture = try await ProxyFixture { _ in
            OriginResponse(headers: headers(("Content-Type", "image/png"), ("Cache-Control", "max-age=600")), body: Self.image)
        }
        let count = 6
        let answers = try await (0..<count).asyncMap { try await HTTPGet.get(try fixture.signed("/burst-\($0).png")) }
        #expect(answers.allSatisfy { $0.status == 200 })
        #expect(await fixture.stop() == 0)
        #expect(fixture.proxy.log.contains("flushed and closed"))
        let store = try PersistentStore(directory: fixture.folder.url)
        defer { store.close() }
        let statistics = try store.statistics()
        #expect(statistics.entries - statistics.derivedEntries == count)
        #expect(statistics.derivedEntries == count)
    }

    @Test("/metrics serves the loads by source in Prometheus text")
    func metricsPresent() async throws {
        let fixture = try await ProxyFixture { _ in
            OriginResponse(headers: headers(("Content-Type", "image/png"), ("Cache-Control", "max-age=600")), body: Self.image)
        }
        let url = try fixture.signed("/m.png")
        _ = try await HTTPGet.get(url)
        _ = try await HTTPGet.get(url)
        // The original and its thumbnail are stored behind the answers: asked again until committed.
        var metrics = ""
        try await eventually {
            metrics = String(decoding: try await HTTPGet.get(fixture.proxy.url("/metrics")).body, as: UTF8.self)
            return metrics.contains("imagecache_store_entries 2")
        }
        #expect(metrics.contains("imagecache_loads_total{source=\"network\"} 1"))
        #expect(metrics.contains("imagecache_loads_total{source=\"memory\"} 1"))
        #expect(metrics.contains("imagecache_store_entries 2"))
        #expect(metrics.contains("imagecache_load_duration_seconds"))
        _ = await fixture.stop()
    }
}

extension Sequence {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
