import CacheStorage
import Foundation
import ImageCache
import LoopbackOrigin
import TestSupport
import Testing

/// HTTPCache through its public API, over URLSession (the default transport) and a real origin.
@Suite("HTTPCache")
struct HTTPCacheTests {
    /// An origin, a store in a temporary folder, and a cache over both.
    final class Fixture: Sendable {
        let origin: LoopbackOrigin
        let folder = TemporaryDirectory("http-cache")
        let store: PersistentStore
        let cache: HTTPCache

        init(memoryCostLimit: Int = 0, generatesGatewayTimeout: Bool = false, handler: @escaping LoopbackOrigin.Handler) async throws {
            origin = try await LoopbackOrigin.start(handler: handler)
            store = try PersistentStore(directory: folder.url)
            var configuration = HTTPCache.Configuration(store: store)
            configuration.memoryCostLimit = memoryCostLimit
            configuration.generatesGatewayTimeout = generatesGatewayTimeout
            cache = HTTPCache(configuration: configuration)
        }

        func get(_ path: String, _ headers: HeaderFields = [:], mode: HTTPCacheRequest.Mode = .default) async throws -> HTTPCacheResponse {
            try await cache.response(for: HTTPCacheRequest(url: origin.url(path), headers: headers, mode: mode))
        }

        func hits(_ path: String) -> Int { origin.requests.filter { $0.path == path }.count }

        deinit {
            store.close()  // before the folder goes
            let origin = origin
            Task { await origin.stop() }
        }
    }

    static func text(_ body: String, _ lines: (String, String)...) -> OriginResponse {
        OriginResponse(headers: headers(lines), body: Data(body.utf8))
    }

    @Test("a fresh response is stored, answered from disk with Age, and found again through a new cache on the store")
    func storesAndReuses() async throws {
        // Already 20 s old when it left the origin (an upstream cache's Age).
        let fixture = try await Fixture { _ in
            Self.text("hello", ("Cache-Control", "max-age=3600"), ("Age", "20"), ("X-Two", "a"), ("X-Two", "b"))
        }
        let started = ContinuousClock.now
        let first = try await fixture.get("/a")
        #expect(first.source == .network)
        #expect(first.storedResponse != nil)
        let second = try await fixture.get("/a")
        let elapsed = ContinuousClock.now - started
        #expect(second.source == .cache(.disk))
        #expect(String(decoding: second.body, as: UTF8.self) == "hello")
        // Served from storage, so it says how old it is: the origin's 20 s, plus the seconds since.
        let age = try #require(second.head.headers.firstValue(for: "Age").flatMap { Int($0) })
        #expect(age >= 20 && age <= 21 + Int(elapsed.components.seconds), "Age \(age) after \(elapsed)")
        await fixture.cache.waitForPendingWrites()
        let reopened = HTTPCache(configuration: .init(store: fixture.store))
        #expect(try await reopened.response(for: HTTPCacheRequest(url: fixture.origin.url("/a"))).source == .cache(.disk))
        #expect(fixture.hits("/a") == 1)
    }

    @Test("with a memory tier, the second answer comes from memory")
    func memoryTier() async throws {
        let fixture = try await Fixture(memoryCostLimit: 1 << 20) { _ in Self.text("m", ("Cache-Control", "max-age=3600")) }
        _ = try await fixture.get("/m")
        #expect(try await fixture.get("/m").source == .cache(.memory))
    }

    @Test("a stale response is revalidated with its ETag; a 304 serves the stored body, revalidated")
    func revalidates() async throws {
        let fixture = try await Fixture { request in
            if request.header("If-None-Match") == "\"v1\"" {
                return OriginResponse(status: 304, headers: headers(("ETag", "\"v1\""), ("Cache-Control", "max-age=0")))
            }
            return Self.text("body", ("ETag", "\"v1\""), ("Cache-Control", "max-age=0"))
        }
        _ = try await fixture.get("/r")
        let second = try await fixture.get("/r")
        #expect(second.source == .revalidated)
        #expect(second.head.status == 200)
        #expect(String(decoding: second.body, as: UTF8.self) == "body")
        #expect(fixture.origin.requests.last?.header("If-None-Match") == "\"v1\"")
    }

    @Test("a successful POST passes through and invalidates its URL and a same-origin Location")
    func unsafeMethodsInvalidate() async throws {
        let fixture = try await Fixture { request in
            if request.method == "POST" {
                return OriginResponse(status: 201, headers: headers(("Location", "/b")), body: Data("made".utf8))
            }
            return Self.text("page", ("Cache-Control", "max-age=600"))
        }
        _ = try await fixture.get("/a")
        _ = try await fixture.get("/b")
        let post = try await fixture.cache.response(
            for: HTTPCacheRequest(url: fixture.origin.url("/a"), method: "POST", body: Data("x".utf8)))
        #expect(post.head.status == 201)
        #expect(post.source == .network)
        #expect(fixture.origin.requests.last?.body == Data("x".utf8))
        #expect(try await fixture.get("/a").source == .network)
        #expect(try await fixture.get("/b").source == .network)
    }

    @Test("HEAD and a single Range are answered from a stored GET response")
    func headAndRange() async throws {
        let fixture = try await Fixture { _ in Self.text("0123456789", ("Cache-Control", "max-age=600")) }
        _ = try await fixture.get("/h")
        let head = try await fixture.cache.response(for: HTTPCacheRequest(url: fixture.origin.url("/h"), method: "HEAD"))
        #expect(head.source == .cache(.disk))
        #expect(head.body.isEmpty)
        let range = try await fixture.get("/h", ["Range": "bytes=2-4"])
        #expect(range.head.status == 206)
        #expect(range.head.headers["Content-Range"] == "bytes 2-4/10")
        #expect(String(decoding: range.body, as: UTF8.self) == "234")
        #expect(fixture.hits("/h") == 1)
    }

    struct OnlyText: ResponseBodyAcceptor {
        struct NotText: Error {}
        func accept(_ head: HTTPResponseHead) throws {
            guard head.headers["Content-Type"] == "text/plain" else { throw NotText() }
        }
    }

    @Test("an acceptor's refusal reaches the caller and nothing is stored")
    func refusal() async throws {
        let fixture = try await Fixture { _ in Self.text("<html>", ("Content-Type", "text/html"), ("Cache-Control", "max-age=600")) }
        await #expect {
            try await fixture.cache.response(for: HTTPCacheRequest(url: fixture.origin.url("/x")), accepting: OnlyText())
        } throws: { error in
            guard case let HTTPCacheError.refused(reason) = error else { return false }
            return reason is OnlyText.NotText
        }
        await fixture.cache.waitForPendingWrites()
        #expect(try fixture.store.statistics().entries == 0)
    }

    @Test("nothing usable stored and no network: a typed error, or a generated 504 when configured")
    func unavailable() async throws {
        let fixture = try await Fixture { _ in Self.text("never") }
        await #expect {
            try await fixture.get("/none", mode: .onlyIfCached)
        } throws: { error in
            guard case HTTPCacheError.notCached = error else { return false }
            return true
        }
        let gateway = try await Fixture(generatesGatewayTimeout: true) { _ in .dropConnection }
        let generated = try await gateway.get("/down")
        #expect(generated.head.status == 504)
        #expect(generated.source == .generated)
        #expect(fixture.hits("/none") == 0)
    }
}
