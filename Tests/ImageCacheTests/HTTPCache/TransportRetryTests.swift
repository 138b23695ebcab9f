import CacheConformance
import Foundation
import ImageCache
import LoopbackOrigin
import Synchronization
import TestSupport
import Testing

/// The transport contract: each transport says which of its failures are transient, and
/// ``HTTPCache`` retries those alike, whichever transport threw them.
@Suite("Transports are retried alike")
struct TransportRetryTests {
    enum Transport: String, CaseIterable, CustomTestStringConvertible {
        case urlSession, nio
        var testDescription: String { rawValue }
        func make() -> any HTTPTransport {
            switch self {
            case .urlSession: URLSessionTransport()
            case .nio: NIOHTTPTransport()
            }
        }
    }

    static func cache(_ transport: any HTTPTransport, attempts: Int = 3) -> HTTPCache {
        var configuration = HTTPCache.Configuration(transport: transport)
        configuration.retry = RetryPolicy(maxAttempts: attempts, baseDelay: .milliseconds(5))
        // What is retried is under test, not the deadline: on a loaded run the default minute
        // could end the exchange first. Ten minutes bounds a hang.
        configuration.fetchDeadline = .seconds(600)
        return HTTPCache(configuration: configuration)
    }

    @Test("a connection dropped before the response is retried, and the second attempt answers", arguments: Transport.allCases)
    func droppedConnection(_ transport: Transport) async throws {
        let attempts = Mutex(0)
        let origin = try await LoopbackOrigin.start { _ in
            let attempt = attempts.withLock { count -> Int in
                count += 1
                return count
            }
            return attempt == 1 ? .dropConnection : OriginResponse(headers: [], body: Data("second".utf8))
        }
        defer { Task { await origin.stop() } }
        let response = try await Self.cache(transport.make()).response(for: HTTPCacheRequest(url: origin.url("/dropped")))
        #expect(String(decoding: response.body, as: UTF8.self) == "second")
        #expect(attempts.withLock { $0 } == 2)
    }

    @Test("a refused connection is retried to the limit, then reported as transient", arguments: Transport.allCases)
    func refusedConnection(_ transport: Transport) async throws {
        // A port bound and never listened on: connecting is refused, and no other test's origin
        // can take the port meanwhile (a port freed by stopping an origin could be, and answer).
        let held = try ReservedLoopbackPort()
        defer { withExtendedLifetime(held) {} }
        let url = URL(string: "http://127.0.0.1:\(held.port)/gone")!
        let cache = Self.cache(transport.make())
        do {
            _ = try await cache.response(for: HTTPCacheRequest(url: url))
            Issue.record("a closed port answered")
        } catch {
            guard case let .network(failure) = error else {
                Issue.record("not a network error: \(error)")
                return
            }
            #expect(failure.isTransient, "a refused connection was reported as permanent: \(failure)")
            // The transport's own error is kept beside the sentence.
            if transport == .urlSession { #expect(failure.urlErrorCode == .cannotConnectToHost, "\(failure.underlying)") }
        }
    }

    /// A transport with failures of its own: the contract, without the network.
    final class OwnErrorsTransport: HTTPTransport {
        enum Failure: Error { case busy, forbidden }
        let failures: Mutex<[Failure]>
        let sent = Mutex(0)

        init(failing failures: [Failure]) { self.failures = Mutex(failures) }

        func send(_ request: TransportRequest) async throws -> TransportResponse {
            sent.withLock { $0 += 1 }
            if let failure = failures.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { throw failure }
            let body = Data("ok".utf8)
            return TransportResponse(
                head: HTTPResponseHead(status: 200), body: AsyncThrowingStream { $0.yield(body); $0.finish() },
                expectedLength: body.count, completeBody: body)
        }

        func isTransient(_ error: any Error) -> Bool { (error as? Failure) == .busy }
    }

    @Test("a transport's own transient error is retried; its permanent one is not, and says so")
    func ownErrors() async throws {
        let url = URL(string: "http://127.0.0.1:9/own")!
        let recovering = OwnErrorsTransport(failing: [.busy, .busy])
        let response = try await Self.cache(recovering).response(for: HTTPCacheRequest(url: url))
        #expect(response.body == Data("ok".utf8))
        #expect(recovering.sent.withLock { $0 } == 3)

        let refusing = OwnErrorsTransport(failing: [.forbidden])
        await #expect {
            try await Self.cache(refusing).response(for: HTTPCacheRequest(url: url))
        } throws: { error in
            guard case let HTTPCacheError.network(failure) = error else { return false }
            return !failure.isTransient && (failure.underlying as? OwnErrorsTransport.Failure) == .forbidden
        }
        #expect(refusing.sent.withLock { $0 } == 1)
    }
}
