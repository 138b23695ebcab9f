import CacheStorage
import Foundation
import ImageCache
import LoopbackOrigin
import TestSupport
import Testing

/// A response fetched with credentials is kept for those credentials only (see
/// ``HTTPCache/Configuration/credentialedResponses``), even when the origin forgets `Vary`.
@Suite("HTTPCache credentialed responses")
struct CredentialPartitionTests {
    /// An origin that answers each caller with a fresh, storable body naming who asked, without `Vary`.
    static func start() async throws -> LoopbackOrigin {
        try await LoopbackOrigin.start { request in
            let who = request.header("Authorization") ?? request.header("Cookie") ?? "anonymous"
            return OriginResponse(headers: headers(("Cache-Control", "max-age=600")), body: Data("for \(who)".utf8))
        }
    }

    static func get(_ cache: HTTPCache, _ url: URL, _ headers: HeaderFields = [:]) async throws -> (String, HTTPCacheResponse.Source) {
        let response = try await cache.response(for: HTTPCacheRequest(url: url, headers: headers))
        return (String(decoding: response.body, as: UTF8.self), response.source)
    }

    @Test("by default a user's response is reused for that user only: another user or none goes to the origin")
    func partitionedByDefault() async throws {
        let origin = try await Self.start()
        defer { Task { await origin.stop() } }
        let folder = TemporaryDirectory("credential-partition")
        let store = try PersistentStore(directory: folder.url)
        defer { store.close() }
        let cache = HTTPCache(configuration: .init(store: store))
        let url = origin.url("/avatar")
        let userA: HeaderFields = ["Authorization": "Bearer A"]
        let userB: HeaderFields = ["Authorization": "Bearer B"]

        #expect(try await Self.get(cache, url, userA) == ("for Bearer A", .network))
        #expect(try await Self.get(cache, url, userA) == ("for Bearer A", .cache(.disk)))
        #expect(try await Self.get(cache, url, userB) == ("for Bearer B", .network))
        #expect(try await Self.get(cache, url) == ("for anonymous", .network))
        #expect(try await Self.get(cache, url, ["Cookie": "id=A"]) == ("for id=A", .network))
        #expect(origin.requests.map { $0.header("Authorization") } == ["Bearer A", "Bearer B", nil, nil])
        // Each partition is kept, and A's survives the others: a new cache on the store still serves it.
        await cache.waitForPendingWrites()
        let reopened = HTTPCache(configuration: .init(store: store))
        #expect(try await Self.get(reopened, url, userA) == ("for Bearer A", .cache(.disk)))
        #expect(try await Self.get(reopened, url) == ("for anonymous", .cache(.disk)))
        #expect(origin.requests.count == 4)
    }

    static func cache(_ store: PersistentStore, _ choice: HTTPCache.CredentialedResponses) -> HTTPCache {
        var configuration = HTTPCache.Configuration(store: store)
        configuration.credentialedResponses = choice
        return HTTPCache(configuration: configuration)
    }

    @Test("opting in: .shared keeps one copy for every caller; .notStored neither stores nor reuses")
    func optIns() async throws {
        let origin = try await Self.start()
        defer { Task { await origin.stop() } }
        let folder = TemporaryDirectory("credential-opt-ins")
        let store = try PersistentStore(directory: folder.url)
        defer { store.close() }
        let shared = Self.cache(store, .shared)
        let url = origin.url("/shared")
        #expect(try await Self.get(shared, url, ["Authorization": "Bearer A"]) == ("for Bearer A", .network))
        #expect(try await Self.get(shared, url, ["Authorization": "Bearer B"]) == ("for Bearer A", .cache(.disk)))
        #expect(try await Self.get(shared, url) == ("for Bearer A", .cache(.disk)))

        let notStored = Self.cache(store, .notStored)
        let other = origin.url("/not-stored")
        #expect(try await Self.get(notStored, other, ["Cookie": "id=A"]) == ("for id=A", .network))
        #expect(try await Self.get(notStored, other, ["Cookie": "id=A"]) == ("for id=A", .network))
        #expect(try await Self.get(notStored, other) == ("for anonymous", .network))
        #expect(try await Self.get(notStored, other) == ("for anonymous", .cache(.disk)))
        #expect(origin.requests.filter { $0.path == "/not-stored" }.count == 3)
    }

    @Test("the pipeline's memory tier is partitioned too: a user's image never answers another request")
    func pipelineMemoryIsPartitioned() async throws {
        let png = PNGEncoder.encode(width: 2, height: 2) { _, _ in (1, 2, 3) }
        let origin = try await LoopbackOrigin.start { _ in
            OriginResponse(headers: headers(("Content-Type", "image/png"), ("Cache-Control", "max-age=600")), body: png)
        }
        defer { Task { await origin.stop() } }
        let pipeline = ImagePipeline(configuration: .init())
        for policy in [CachePolicy.duringAppSession, .persistent()] {
            let url = origin.url("/pipeline/\(policy)")
            var userA = ImageRequest(url: url, policy: policy)
            userA.headers = ["Authorization": "Bearer A"]
            #expect(try await pipeline.image(for: userA).source == .network)
            #expect(try await pipeline.image(for: userA).source == .memory)
            #expect(pipeline.cachedImage(for: ImageRequest(url: url, policy: policy)) == nil)
            #expect(try await pipeline.image(for: ImageRequest(url: url, policy: policy)).source == .network)
        }
    }
}
