import CacheStorage
import Foundation
import LoopbackOrigin
import TestSupport
import Testing

@testable import HTTPCaching

/// What the image pipeline asks of the HTTP cache (`HTTPCache.PipelineAccess`), asked directly:
/// a look-up answers fresh, stale or absent with what it found, and the load it is handed to acts
/// on that answer as the full rule says.
@Suite("HTTPCache's pipeline access")
struct PipelineAccessTests {
    @Test("a look-up answers absent, then fresh from disk with its Age, and stale for a response to validate, which the load revalidates with a 304")
    func lookUpAnswers() async throws {
        let origin = try await LoopbackOrigin.start { request in
            if request.path == "/no-cache" {
                guard request.header("If-None-Match") == "\"v1\"" else {
                    return OriginResponse(
                        headers: headers(("Cache-Control", "no-cache"), ("ETag", "\"v1\"")), body: Data("validated".utf8))
                }
                return OriginResponse(status: 304, headers: headers(("ETag", "\"v1\"")))
            }
            // Already 20 s old when it left the origin (an upstream cache's Age); fresh for an
            // hour, so a load slowed by a busy machine still finds it fresh.
            return OriginResponse(headers: headers(("Cache-Control", "max-age=3600"), ("Age", "20")), body: Data("fresh".utf8))
        }
        defer { Task { await origin.stop() } }
        let folder = TemporaryDirectory("pipeline-access")
        let store = try PersistentStore(directory: folder.url)
        defer { store.close() }
        // A memory tier that keeps nothing: every answer below comes from the disk tier (or the
        // line of writes waiting for it).
        let access = HTTPCache.PipelineAccess(
            configuration: .init(store: store),
            memoryTier: EntryMemoryTier(entries: MemoryCache(costLimit: 1 << 20, countLimit: 0)))
        func lookUp(_ url: URL) -> HTTPCache.Lookup {
            access.lookUp(plainRequestFor: url.absoluteString, override: .none, readingMemory: true)
        }
        func load(_ url: URL, after lookup: HTTPCache.Lookup) async throws -> HTTPCacheResponse {
            try await access.response(for: HTTPCacheRequest(url: url), accepting: AcceptEveryBody(), progress: nil, after: lookup)
        }

        let url = origin.url("/a")
        let cold = lookUp(url)
        guard case .absent = cold.answer else { Issue.record("nothing stored, yet \(cold.answer)"); return }
        let started = ContinuousClock.now
        #expect(try await load(url, after: cold).source == .network)

        let warm = lookUp(url)
        guard case let .fresh(found) = warm.answer else { Issue.record("fresh for an hour, yet \(warm.answer)"); return }
        let elapsed = ContinuousClock.now - started
        #expect(found.tier == .disk)
        #expect(found.head.status == 200)
        #expect(String(decoding: found.body, as: UTF8.self) == "fresh")
        // Served from storage, so it says how old it is: the origin's 20 s, plus the seconds since.
        let age = try #require(found.head.headers.firstValue(for: "Age").flatMap { Int($0) })
        #expect(age >= 20 && age <= 21 + Int(elapsed.components.seconds), "Age \(age)")
        #expect(try await load(url, after: warm).source == .cache(.disk))
        #expect(origin.requests.filter { $0.path == "/a" }.count == 1)

        let validated = origin.url("/no-cache")
        #expect(try await load(validated, after: lookUp(validated)).source == .network)
        let toValidate = lookUp(validated)
        guard case .stale = toValidate.answer else { Issue.record("no-cache, yet \(toValidate.answer)"); return }
        let revalidated = try await load(validated, after: toValidate)
        #expect(revalidated.source == .revalidated)
        #expect(String(decoding: revalidated.body, as: UTF8.self) == "validated")
        #expect(origin.requests.filter { $0.path == "/no-cache" }.count == 2)
        await access.waitForPendingWrites()
    }
}
