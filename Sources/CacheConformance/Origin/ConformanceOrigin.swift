import Foundation
import HTTPCaching
import LoopbackOrigin
import NIOConcurrencyHelpers

/// The suite's origin server (`conventions.origin` in cases.json) on a real loopback HTTP/1.1 server.
///
/// Tests register under their token; a request to `/test/<token>…` is answered from that test's
/// config, picked by its `Req-Num` header. The origin emits `Server-Base-Url`, `Server-Request-Count`,
/// `Client-Request-Count` and `Server-Now`, then the test's headers in order (repeated names as
/// separate lines, grouped where the name first appeared, as Node does), `Content-Type: text/plain`
/// unless given, `Request-Numbers`, and what Node adds: `Date` when the test gave none (304s too),
/// and `Connection: keep-alive` with `Keep-Alive: timeout=5` when the test gave no `Connection`.
/// Its `Date` and `Server-Now` are the test's ``ReplayClock``'s. A `*_validated` request gets a 304 only when
/// its `If-None-Match` or `If-Modified-Since` equals exactly what the previous response carried,
/// else status 999. Every request is logged, `disconnect` ones included.
package final class ConformanceOrigin: Sendable {
    private let server: LoopbackOrigin
    private let tests: NIOLockedValueBox<[String: OriginTest]>

    private init(server: LoopbackOrigin, tests: NIOLockedValueBox<[String: OriginTest]>) {
        self.server = server
        self.tests = tests
    }

    /// Starts the origin on an ephemeral port of 127.0.0.1.
    package static func start() async throws -> ConformanceOrigin {
        let tests = NIOLockedValueBox<[String: OriginTest]>([:])
        let server = try await LoopbackOrigin.start { request in
            await Self.respond(to: request, tests: tests)
        }
        return ConformanceOrigin(server: server, tests: tests)
    }

    /// Serves `test` under `token` from now on, dating its answers by `clock`.
    package func register(_ test: CacheTestsCase, token: String, clock: ReplayClock) {
        tests.withLockedValue { $0[token] = OriginTest(config: test, token: token, clock: clock) }
    }

    /// Forgets the test under `token`, returning its log.
    @discardableResult
    package func unregister(token: String) -> [OriginLogEntry] {
        tests.withLockedValue { $0.removeValue(forKey: token)?.log ?? [] }
    }

    /// The log of the test under `token` so far.
    package func log(token: String) -> [OriginLogEntry] {
        tests.withLockedValue { $0[token]?.log ?? [] }
    }

    /// The URL of request `suffix` of the test under `token`.
    package func url(token: String, suffix: String) -> URL {
        server.url("/test/\(token)\(suffix)")
    }

    package func stop() async {
        await server.stop()
    }

    private static func respond(to request: OriginRequest, tests: NIOLockedValueBox<[String: OriginTest]>) async -> OriginResponse {
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: true)
        guard segments.count >= 2, segments[0] == "test" else {
            return OriginResponse(status: 404, body: Data("Config Not Found".utf8))
        }
        let token = String(segments[1])
        let clientNumber = request.header("Req-Num").flatMap { Int($0) }
        // A wait before answering moves the test's clock, as its script's pauses do.
        let answer = tests.withLockedValue { tests -> OriginResponse? in
            guard let test = tests[token], let pause = test.responsePause(clientNumber: clientNumber) else { return nil }
            if pause > 0 { test.clock.advance(by: pause) }
            return tests[token]?.answer(request, clientNumber: clientNumber, now: test.clock.now())
        }
        return answer ?? OriginResponse(status: 409, body: Data("Requests not found for \(token)".utf8))
    }
}
