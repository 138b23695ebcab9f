import Foundation
import LoopbackOrigin
import Testing

/// Answers the memory tier can give at once are written on the event loop, inside the channel
/// (`MemoryAnswerHandler`): they must be the answers the responder would give, counted, in the
/// connection's order, framed so the connection goes on, and never given to a request that asked
/// for something else of the connection.
@Suite("imagecache-proxy answers from memory")
struct MemoryAnswerTests {
    static let fast = gradientPNG(width: 320, height: 240)
    static let slow = gradientPNG(width: 200, height: 300)

    static func fixture() async throws -> ProxyFixture {
        try await ProxyFixture { request in
            if request.path == "/slow.png" {
                // Long enough that an answer from memory behind it would overtake it.
                try? await Task.sleep(for: .milliseconds(1500))
                return OriginResponse(headers: headers(("Content-Type", "image/png"), ("Cache-Control", "max-age=600")), body: Self.slow)
            }
            return OriginResponse(headers: headers(("Content-Type", "image/png"), ("Cache-Control", "max-age=600")), body: Self.fast)
        }
    }

    /// The request target of a proxy URL.
    static func target(_ url: URL) -> String {
        String(url.absoluteString.drop { $0 != "/" }.dropFirst(2).drop { $0 != "/" })
    }

    static func answeredAtOnce(_ fixture: ProxyFixture) async throws -> Int {
        let metrics = String(decoding: try await HTTPGet.get(fixture.proxy.url("/metrics")).body, as: UTF8.self)
        let line = metrics.split(separator: "\n").first { $0.hasPrefix("imagecache_proxy_answers_at_once_total ") }
        return line.flatMap { $0.split(separator: " ").last }.flatMap { Int($0) } ?? 0
    }

    @Test("a thumbnail asked for again is answered at once, counted, with the responder's body and headers")
    func answeredAtOnce() async throws {
        let fixture = try await Self.fixture()
        let url = try fixture.signed("/fast.png")
        // The first answer is loaded; the second is answered from the thumbnail the memory tier
        // then holds, and kept; from the third on the event loop answers.
        let first = try await HTTPGet.get(url)
        #expect(try await Self.answeredAtOnce(fixture) == 0)
        for round in 0..<6 {
            let again = try await HTTPGet.get(url, headers: [("Connection", "keep-alive")])
            #expect(again.status == 200)
            #expect(again.body == first.body)
            for name in ["ETag", "Content-Type", "Vary", "X-Content-Type-Options"] {
                #expect(again.header(name) == first.header(name), "\(name)")
            }
            #expect(again.header("Cache-Control")?.hasPrefix("public, max-age=") == true)
            #expect(again.header("Content-Length") == String(first.body.count))
            #expect(try await Self.answeredAtOnce(fixture) == round)
        }
        #expect(fixture.originHits("/fast.png") == 1)
        _ = await fixture.stop()
    }

    @Test("requests sent back to back are answered in their order, an answer from memory never overtaking a load")
    func pipelinedOrder() async throws {
        let fixture = try await Self.fixture()
        let fast = try fixture.signed("/fast.png")
        let slow = try fixture.signed("/slow.png")
        for _ in 0..<3 { _ = try await HTTPGet.get(fast) }
        let fastTag = try #require(try await HTTPGet.get(fast).header("ETag"))
        let before = try await Self.answeredAtOnce(fixture)
        let requests = [slow, fast, fast].map { "GET \(Self.target($0)) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" }.joined()
        let exchange = try await RawConnection.exchange(port: fixture.proxy.port, requests, expecting: 3)
        try #require(exchange.responses.count == 3, "\(exchange.responses.map(\.status))")
        #expect(exchange.responses.map(\.status) == [200, 200, 200])
        #expect(exchange.responses[0].header("ETag") != fastTag, "the load's answer came first")
        #expect(exchange.responses[1].header("ETag") == fastTag)
        #expect(exchange.responses[2].header("ETag") == fastTag)
        // Behind a load, the two were passed on; the connection answers at once again after it.
        #expect(try await Self.answeredAtOnce(fixture) == before)
        let after = try await RawConnection.exchange(
            port: fixture.proxy.port, "GET \(Self.target(fast)) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", expecting: 1)
        #expect(after.responses.first?.header("ETag") == fastTag)
        #expect(try await Self.answeredAtOnce(fixture) == before + 1)
        _ = await fixture.stop()
    }

    @Test("a 304 from memory leaves the connection usable, a query is ignored, and Connection: close is honoured")
    func framing() async throws {
        let fixture = try await Self.fixture()
        let fast = try fixture.signed("/fast.png")
        for _ in 0..<3 { _ = try await HTTPGet.get(fast) }
        let tag = try #require(try await HTTPGet.get(fast).header("ETag"))
        let target = Self.target(fast)
        let before = try await Self.answeredAtOnce(fixture)
        let requests =
            "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nIf-None-Match: \(tag)\r\n\r\n"
            + "GET \(target)?cache-buster=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        let exchange = try await RawConnection.exchange(port: fixture.proxy.port, requests, expecting: 2)
        #expect(exchange.responses.map(\.status) == [304, 200])
        #expect(exchange.responses.first?.body.isEmpty == true)
        #expect(exchange.responses.first?.header("ETag") == tag)
        #expect(exchange.responses.last?.header("ETag") == tag)
        #expect(try await Self.answeredAtOnce(fixture) == before + 2)
        // Connection: close goes to the responder, which closes after its answer.
        let closing = try await RawConnection.exchange(
            port: fixture.proxy.port, "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", expecting: 1,
            untilClosed: true, timeout: 30)
        #expect(closing.responses.map(\.status) == [200])
        #expect(closing.closedByServer)
        #expect(try await Self.answeredAtOnce(fixture) == before + 2)
        _ = await fixture.stop()
    }
}
