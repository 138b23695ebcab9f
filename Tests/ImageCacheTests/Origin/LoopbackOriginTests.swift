import Foundation
import LoopbackOrigin
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Loopback origin")
struct LoopbackOriginTests {
    @Test("answers with exactly the status, headers (order, repeats, Date) and body it is given, and logs the request")
    func exactResponses() async throws {
        let origin = try await LoopbackOrigin.start { request in
            OriginResponse(
                status: request.path == "/missing" ? 404 : 200,
                headers: [
                    HeaderLine("Date", "Mon, 01 Jan 2024 00:00:00 GMT"), HeaderLine("Cache-Control", "max-age=1"),
                    HeaderLine("Cache-Control", "public"), HeaderLine("X-Echo", request.header("X-Probe") ?? "none"),
                ],
                body: Data("hello \(request.target)".utf8))
        }
        let session = URLSession(configuration: .ephemeral)
        var request = URLRequest(url: origin.url("/a.png?x=1"))
        request.setValue("probe", forHTTPHeaderField: "X-Probe")
        let (data, response) = try await session.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == "hello /a.png?x=1")
        #expect(http.value(forHTTPHeaderField: "Date") == "Mon, 01 Jan 2024 00:00:00 GMT")
        #expect(http.value(forHTTPHeaderField: "X-Echo") == "probe")
        #expect(http.value(forHTTPHeaderField: "Cache-Control")?.contains("max-age=1") == true)
        let (_, missing) = try await session.data(from: origin.url("/missing"))
        #expect((missing as? HTTPURLResponse)?.statusCode == 404)
        #expect(origin.requests.map(\.target) == ["/a.png?x=1", "/missing"])
        #expect(origin.requests.first?.header("x-probe") == "probe")
        await origin.stop()
    }

    @Test("a body longer than its announced Content-Length is cut there, so the next request is unharmed")
    func misframedBody() async throws {
        // A conformance case sends `Content-Length: 10` with a longer body: the bytes past the
        // announced length must not reach the next exchange on a reused connection.
        let origin = try await LoopbackOrigin.start { request in
            request.path == "/short"
                ? OriginResponse(headers: [HeaderLine("Content-Length", "4")], body: Data("abcdefghijklmnop".utf8))
                : OriginResponse(body: Data("whole".utf8))
        }
        let session = URLSession(configuration: .ephemeral)
        let (short, _) = try await session.data(from: origin.url("/short"))
        #expect(short == Data("abcd".utf8))
        // Long enough for a client to take the idle connection for reusable: the excess bytes,
        // had they been sent, would be waiting on it.
        try await Task.sleep(for: .seconds(2))
        for _ in 0..<3 {
            let (next, response) = try await session.data(from: origin.url("/next"))
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(next == Data("whole".utf8))
        }
        await origin.stop()
    }

    @Test("a dropped connection surfaces as a network error")
    func dropConnection() async throws {
        let origin = try await LoopbackOrigin.start { _ in .dropConnection }
        let session = URLSession(configuration: .ephemeral)
        await #expect(throws: (any Error).self) { _ = try await session.data(from: origin.url("/x")) }
        await origin.stop()
    }
}
