import CacheStorage
import Foundation
import ImageCache
import LoopbackOrigin
import TestSupport
import Testing

/// `maxConcurrentFetches` against a real origin that holds each request until the test lets it go.
@Suite("HTTPCache fetch limit")
struct FetchLimitTests {
    /// Holds origin handlers until released, and counts how many it held at once.
    final class OriginGate: Sendable {
        private struct State {
            var held: [CheckedContinuation<Void, Never>] = []
            var arrived = 0
            var mostAtOnce = 0
        }

        private let state = Mutex(State())

        /// Called by the origin's handler: waits until ``releaseOne()`` lets it go.
        func pass() async {
            await withCheckedContinuation { continuation in
                state.withLock { state in
                    state.held.append(continuation)
                    state.arrived += 1
                    state.mostAtOnce = max(state.mostAtOnce, state.held.count)
                }
            }
        }

        func releaseOne() {
            let first = state.withLock { $0.held.isEmpty ? nil : $0.held.removeFirst() }
            first?.resume()
        }

        var held: Int { state.withLock { $0.held.count } }
        var arrived: Int { state.withLock { $0.arrived } }
        var mostAtOnce: Int { state.withLock { $0.mostAtOnce } }
    }

    static func cache(limit: Int, store: PersistentStore) -> HTTPCache {
        var configuration = HTTPCache.Configuration(store: store)
        configuration.maxConcurrentFetches = limit
        return HTTPCache(configuration: configuration)
    }

    @Test("no more exchanges reach the origin at once than the limit; the others wait their turn")
    func limitsConcurrentExchanges() async throws {
        let gate = OriginGate()
        let origin = try await LoopbackOrigin.start { _ in
            await gate.pass()
            return OriginResponse(headers: headers(("Cache-Control", "max-age=3600")), body: Data("x".utf8))
        }
        defer { Task { await origin.stop() } }
        let folder = TemporaryDirectory("fetch-limit")
        let store = try PersistentStore(directory: folder.url)
        defer { store.close() }
        let cache = Self.cache(limit: 2, store: store)
        let loads = (0..<5).map { index in
            Task { try await cache.response(for: HTTPCacheRequest(url: origin.url("/limit/\(index)"))) }
        }
        try await eventually { gate.held == 2 }
        // Time for a third request to arrive if nothing held it back (it cannot arrive while two are held).
        try await Task.sleep(for: .milliseconds(300))
        #expect(gate.arrived == 2)
        for _ in 0..<5 {
            try await eventually { gate.held > 0 }
            gate.releaseOne()
        }
        for load in loads { #expect(try await load.value.head.status == 200) }
        #expect(gate.arrived == 5)
        #expect(gate.mostAtOnce == 2)
    }

    @Test("a 304 for another representation refetches within a limit of one (its slot is given back first)")
    func refetchUnderLimitOfOne() async throws {
        let origin = try await LoopbackOrigin.start { request in
            if request.header("If-None-Match") == "\"a\"" {
                return OriginResponse(status: 304, headers: headers(("ETag", "\"b\""), ("Cache-Control", "max-age=0")))
            }
            return OriginResponse(headers: headers(("ETag", "\"a\""), ("Cache-Control", "max-age=0")), body: Data("a".utf8))
        }
        defer { Task { await origin.stop() } }
        let folder = TemporaryDirectory("fetch-limit-304")
        let store = try PersistentStore(directory: folder.url)
        defer { store.close() }
        // Stored with ETag "a" through a cache without a limit.
        let first = HTTPCache(configuration: .init(store: store))
        _ = try await first.response(for: HTTPCacheRequest(url: origin.url("/s")))
        await first.waitForPendingWrites()
        let cache = Self.cache(limit: 1, store: store)
        let refetch = Task { try await cache.response(for: HTTPCacheRequest(url: origin.url("/s"))) }
        // A refetch waiting for the slot its own revalidation holds would wait forever: give it 20 s,
        // then cancel it (which ends its wait) and fail.
        let watchdog = Task {
            try await Task.sleep(for: .seconds(20))
            refetch.cancel()
        }
        let result = await refetch.result
        watchdog.cancel()
        #expect(throws: Never.self, "the refetch waited for the slot its own revalidation held") { try result.get() }
        #expect(origin.requests.filter { $0.path == "/s" }.count == 3)
    }
}
