import CacheStorage
import Foundation
import HTTPCaching
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// An HTTP/1.1 client transport on SwiftNIO that hands every response on exactly as it arrived:
/// header lines in order, repeated names as separate lines, any status (999 included), no
/// redirect followed, no cache of its own. Connections are kept alive per host and use `TCP_NODELAY`.
///
/// Why it exists, and why here: the conformance checks compare headers line for line, and
/// ``URLSessionTransport`` cannot pass them on faithfully (`HTTPURLResponse.allHeaderFields` is a
/// dictionary: repeated lines are merged and order is lost; it also follows redirects). It lives in
/// the harness rather than in `ImageCache` so the library keeps no dependency on SwiftNIO: apps get
/// URLSession, which is what a platform's networking stack should be, and only the harness (which
/// already runs a NIO origin) pays for NIO. Plain `http://` only.
package final class NIOHTTPTransport: HTTPTransport {
    private let group: any EventLoopGroup
    private let idleConnections = NIOLockedValueBox<[String: [HTTPConnection]]>([:])

    /// Creates a transport on `group` (NIO's shared singleton by default).
    package init(group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.group = group
    }

    package func send(_ request: TransportRequest) async throws -> TransportResponse {
        guard request.url.scheme?.lowercased() == "http", let host = request.url.host else {
            throw NIOHTTPTransportError.unsupportedURL(request.url)
        }
        let port = request.url.port ?? 80
        let connection = try await checkOut(host: host, port: port)
        let (body, chunks) = AsyncThrowingStream<Data, any Error>.makeStream()
        // A reader that stops before the end leaves bytes on the wire: that connection cannot be reused.
        chunks.onTermination = { termination in
            if case .cancelled = termination { connection.close() }
        }
        let exchange = ExchangeStart(
            head: Self.requestHead(request, host: host, port: port),
            body: request.body.map { ByteBuffer(bytes: $0) },
            responseHead: connection.channel.eventLoop.makePromise(),
            chunks: chunks,
            idleTimeout: TimeAmount.milliseconds(request.timeout.wholeMilliseconds),
            finished: { [weak self] reusable in
                if reusable, let self { self.checkIn(connection) } else { connection.close() }
            })
        let head = try await withTaskCancellationHandler {
            try await connection.start(exchange)
        } onCancel: {
            connection.close()
        }
        return TransportResponse(
            head: HTTPResponseHead(
                status: Int(head.status.code), headers: HeaderFields(head.headers.map { .init($0.name, $0.value) })),
            body: body, expectedLength: Self.expectedLength(head, method: request.head.method))
    }

    /// A timeout, a connection closed before the response was complete, and a connection that
    /// could not be made, refused or reset: all may go away when the request is sent again.
    package func isTransient(_ error: any Error) -> Bool {
        switch error {
        case NIOHTTPTransportError.timedOut, NIOHTTPTransportError.connectionClosed: return true
        case is NIOConnectionError: return true
        case let error as ChannelError:
            if case .connectTimeout = error { return true }
            return error == .ioOnClosedChannel || error == .eof
        case let error as IOError:
            return [ECONNREFUSED, ECONNRESET, EPIPE, ETIMEDOUT, ENETUNREACH, EHOSTUNREACH].contains(error.errnoCode)
        default: return false
        }
    }

    /// Closes every idle connection.
    package func shutdown() {
        let idle = idleConnections.withLockedValue { connections in
            defer { connections.removeAll() }
            return connections.values.flatMap { $0 }
        }
        for connection in idle { connection.close() }
    }

    private func checkOut(host: String, port: Int) async throws -> HTTPConnection {
        let key = "\(host):\(port)"
        while let idle = idleConnections.withLockedValue({ $0[key]?.popLast() }) {
            if idle.isReusable { return idle }
        }
        return try await HTTPConnection.connect(host: host, port: port, key: key, group: group)
    }

    private func checkIn(_ connection: HTTPConnection) {
        guard connection.isReusable else { return }
        idleConnections.withLockedValue { $0[connection.key, default: []].append(connection) }
    }

    private static func requestHead(_ request: TransportRequest, host: String, port: Int) -> NIOHTTP1.HTTPRequestHead {
        var headers = HTTPHeaders()
        if !request.head.headers.contains("Host") { headers.add(name: "Host", value: "\(host):\(port)") }
        for field in request.head.headers { headers.add(name: field.name, value: field.value) }
        if let body = request.body, !request.head.headers.contains("Content-Length") {
            headers.add(name: "Content-Length", value: String(body.count))
        }
        let target = request.url.path(percentEncoded: true).isEmpty ? "/" : request.url.path(percentEncoded: true)
        let query = request.url.query(percentEncoded: true).map { "?" + $0 } ?? ""
        return NIOHTTP1.HTTPRequestHead(
            version: .http1_1, method: HTTPMethod(rawValue: request.head.method), uri: target + query, headers: headers)
    }

    /// The announced body length; none for `HEAD`, 1xx, 204 and 304, which have no body whatever they say.
    private static func expectedLength(_ head: NIOHTTP1.HTTPResponseHead, method: String) -> Int? {
        let code = head.status.code
        guard method != "HEAD", code >= 200, code != 204, code != 304 else { return nil }
        return head.headers.first(name: "Content-Length").flatMap { Int($0) }
    }
}
