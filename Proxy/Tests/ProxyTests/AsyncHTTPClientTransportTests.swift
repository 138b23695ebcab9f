import AsyncHTTPClientTransport
import CacheStorage
import Foundation
import HTTPCaching
import LoopbackOrigin
import Testing

/// AsyncHTTPClientTransport against a real loopback origin: the transport contract HTTPCache
/// relies on.
@Suite("AsyncHTTPClientTransport")
struct AsyncHTTPClientTransportTests {
    static func body(_ response: TransportResponse) async throws -> Data {
        var data = Data()
        for try await chunk in response.body { data.append(chunk) }
        return data
    }

    @Test("header lines come in order with repeated names kept, and a redirect is answered, not followed")
    func headersAsTheyArrived() async throws {
        let origin = try await LoopbackOrigin.start { request in
            if request.path == "/moved" {
                return OriginResponse(status: 302, headers: headers(("Location", "/elsewhere")))
            }
            return OriginResponse(
                headers: headers(("X-B", "1"), ("X-A", "2"), ("X-B", "3"), ("Cache-Control", "max-age=5")), body: Data("hello".utf8))
        }
        let transport = AsyncHTTPClientTransport()
        let response = try await transport.send(TransportRequest(url: origin.url("/h")))
        #expect(response.head.status == 200)
        let names = response.head.headers.map(\.name).filter { $0.hasPrefix("X-") }
        #expect(names == ["X-B", "X-A", "X-B"])
        // Small and announced: handed over whole, and in the stream as well.
        #expect(response.completeBody == Data("hello".utf8))
        #expect(try await Self.body(response) == Data("hello".utf8))
        let moved = try await transport.send(TransportRequest(url: origin.url("/moved")))
        #expect(moved.head.status == 302)
        #expect(origin.requests.filter { $0.path == "/elsewhere" }.isEmpty)
        try await transport.shutdown()
        await origin.stop()
    }

    @Test("a large body streams, and bytes past maxBodyBytes fail it as too large and stop the transfer")
    func bodyLimit() async throws {
        let large = Data(repeating: 7, count: 4 * 1024 * 1024)
        // The limited transfer is held after 1 MiB until the client hangs up: it must stop before.
        let origin = try await LoopbackOrigin.start { request in
            let hold = request.path == "/limited" ? 1024 * 1024 : nil
            return OriginResponse(
                body: large, bodyPacing: BodyPacing(chunkBytes: 64 * 1024, interval: .milliseconds(5), holdAfterBytes: hold))
        }
        let transport = AsyncHTTPClientTransport()
        let whole = try await transport.send(TransportRequest(url: origin.url("/whole"), maxBodyBytes: nil))
        #expect(whole.completeBody == nil)
        #expect(try await Self.body(whole).count == large.count)
        let limited = try await transport.send(TransportRequest(url: origin.url("/limited"), maxBodyBytes: 256 * 1024))
        await #expect {
            _ = try await Self.body(limited)
        } throws: { error in
            if case HTTPCacheError.bodyTooLarge(256 * 1024) = error { true } else { false }
        }
        for _ in 0..<200 where !origin.deliveries.contains(where: { $0.target == "/limited" }) {
            try await Task.sleep(for: .milliseconds(25))
        }
        let delivery = try #require(origin.deliveries.first { $0.target == "/limited" })
        #expect(!delivery.completed && delivery.bodyBytesWritten < large.count)
        try await transport.shutdown()
        await origin.stop()
    }

    @Test("a refused connection is transient; an unsupported scheme is not")
    func transience() async throws {
        let origin = try await LoopbackOrigin.start { _ in OriginResponse() }
        let url = origin.url("/gone")
        await origin.stop()
        let transport = AsyncHTTPClientTransport()
        do {
            _ = try await transport.send(TransportRequest(url: url, timeout: .seconds(5)))
            Issue.record("a request to a closed port succeeded")
        } catch {
            #expect(transport.isTransient(error), "\(error)")
        }
        do {
            _ = try await transport.send(TransportRequest(url: URL(string: "ftp://127.0.0.1/x")!))
            Issue.record("an ftp URL was sent")
        } catch {
            #expect(!transport.isTransient(error))
        }
        try await transport.shutdown()
    }

    @Test("HTTPCache over it revalidates with a 304 and keeps the stored body")
    func revalidation() async throws {
        let origin = try await LoopbackOrigin.start { request in
            if request.header("If-None-Match") == "\"v\"" {
                return OriginResponse(status: 304, headers: headers(("ETag", "\"v\""), ("Cache-Control", "max-age=0")))
            }
            return OriginResponse(headers: headers(("ETag", "\"v\""), ("Cache-Control", "max-age=0")), body: Data("body".utf8))
        }
        let transport = AsyncHTTPClientTransport()
        let folder = TemporaryFolder("ahc-cache")
        let store = try PersistentStore(directory: folder.url)
        defer { store.close() }
        let cache = HTTPCache(configuration: HTTPCache.Configuration(store: store, transport: transport))
        _ = try await cache.response(for: HTTPCacheRequest(url: origin.url("/r")))
        let second = try await cache.response(for: HTTPCacheRequest(url: origin.url("/r")))
        #expect(second.source == .revalidated)
        #expect(second.body == Data("body".utf8))
        try await transport.shutdown()
        await origin.stop()
    }
}
