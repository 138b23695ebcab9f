import AsyncHTTPClient
import Foundation
import HTTPCaching
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOPosix

/// ``HTTPTransport`` over AsyncHTTPClient: the server ecosystem's HTTP client, on SwiftNIO, with
/// connection pooling per host, HTTP/2 where the origin offers it over TLS, and no cache of its own.
///
/// Responses are passed on as they arrive: any status, header lines in order with repeated names
/// kept, redirects not followed (a 3xx is the answer: a proxy that checks where it fetches from
/// must see where a redirect points before going there), `Content-Encoding` not undone (the
/// client sends no `Accept-Encoding` of its own).
///
/// Timeouts: the request's ``TransportRequest/timeout`` bounds the wait for the response head;
/// once the body flows, ``idleReadTimeout`` bounds each wait for more (AsyncHTTPClient sets read
/// timeouts per client, not per request). The cache's fetch deadline and minimum rate bound the
/// whole exchange above this.
///
/// A small body with a known length (256 KiB at most) is gathered before the head is handed over
/// and passed whole as ``TransportResponse/completeBody``, so the cache reads it without an
/// asynchronous step per chunk; larger and unannounced bodies stream, so a reader can refuse one
/// by its first bytes. Bytes past the request's ``TransportRequest/maxBodyBytes`` end the
/// exchange with ``HTTPCacheError/bodyTooLarge(limit:)``.
///
/// ```swift
/// let transport = AsyncHTTPClientTransport()
/// var configuration = ImagePipeline.Configuration(diskCache: store)
/// configuration.transport = transport
/// // … and when done: try await transport.shutdown()
/// ```
public final class AsyncHTTPClientTransport: HTTPTransport {
    /// The client requests go through.
    public let client: HTTPClient
    /// How long a body may go without a byte once it flows. 30 s by default.
    public let idleReadTimeout: Duration
    private let ownsClient: Bool

    /// The largest body gathered whole before the head is handed over.
    static let onePieceLimit = 256 * 1024

    /// A transport with a client of its own on NIO's shared event loops: `maxConnectionsPerHost`
    /// (8 by default) kept alive per origin, connections made within `connectTimeout` (10 s by default).
    public init(
        maxConnectionsPerHost: Int = 8, connectTimeout: Duration = .seconds(10), idleReadTimeout: Duration = .seconds(30)
    ) {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .init(connectTimeout), read: .init(idleReadTimeout)),
            decompression: .disabled)
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = maxConnectionsPerHost
        client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
        self.idleReadTimeout = idleReadTimeout
        ownsClient = true
    }

    /// A transport over `client`, which the caller configured and shuts down. Give it
    /// `redirectConfiguration: .disallow` and `decompression: .disabled` to keep this transport's
    /// contract (responses as they arrived).
    public init(client: HTTPClient, idleReadTimeout: Duration = .seconds(30)) {
        self.client = client
        self.idleReadTimeout = idleReadTimeout
        ownsClient = false
    }

    /// Closes the client's connections, when the transport made the client. Optional: a
    /// transport that goes away shuts its own client down.
    public func shutdown() async throws {
        if ownsClient { try await client.shutdown() }
    }

    deinit {
        // AsyncHTTPClient requires a shutdown before its client goes; the callback form does not
        // block, and a client already shut down only reports that to it.
        if ownsClient { client.shutdown { _ in } }
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        guard let scheme = request.url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw AsyncHTTPClientTransportError.unsupportedURL(request.url)
        }
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.head.method)
        for field in request.head.headers { outgoing.headers.add(name: field.name, value: field.value) }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await client.execute(outgoing, timeout: .init(request.timeout))
        let head = HTTPCaching.HTTPResponseHead(
            status: Int(response.status.code), headers: HeaderFields(response.headers.map { .init($0.name, $0.value) }))
        let expectedLength = Self.expectedLength(response, method: request.head.method)
        let limit = request.maxBodyBytes
        if let expectedLength, expectedLength <= min(Self.onePieceLimit, limit ?? .max) {
            let whole = try await Self.gather(response.body, expectedLength: expectedLength, limit: limit)
            let (body, chunks) = AsyncThrowingStream<Data, any Error>.makeStream()
            if !whole.isEmpty { chunks.yield(whole) }
            chunks.finish()
            return TransportResponse(head: head, body: body, expectedLength: expectedLength, completeBody: whole)
        }
        let (body, chunks) = AsyncThrowingStream<Data, any Error>.makeStream()
        // The pump reads AsyncHTTPClient's body into the stream; cancelling it closes the connection.
        let pump = Task {
            do {
                var delivered = 0
                for try await buffer in response.body {
                    delivered += buffer.readableBytes
                    if let limit, delivered > limit { throw HTTPCacheError.bodyTooLarge(limit: limit) }
                    chunks.yield(Data(buffer: buffer, byteTransferStrategy: .noCopy))
                }
                chunks.finish()
            } catch {
                chunks.finish(throwing: error)
            }
        }
        chunks.onTermination = { termination in
            if case .cancelled = termination { pump.cancel() }
        }
        return TransportResponse(
            head: head, body: body, expectedLength: expectedLength, cancelTransfer: { pump.cancel() })
    }

    /// A body of a known, small length, read whole; bytes past `limit` end it.
    private static func gather(_ body: HTTPClientResponse.Body, expectedLength: Int, limit: Int?) async throws -> Data {
        var whole: ByteBuffer?
        for try await buffer in body {
            if whole == nil, buffer.readableBytes == expectedLength { whole = buffer; continue }
            if whole == nil { whole = ByteBuffer() }
            var incoming = buffer
            whole?.writeBuffer(&incoming)
            if let limit, (whole?.readableBytes ?? 0) > limit { throw HTTPCacheError.bodyTooLarge(limit: limit) }
        }
        guard let whole else { return Data() }
        return Data(buffer: whole, byteTransferStrategy: .noCopy)
    }

    /// A timeout, a connection closed or refused before the response was complete, a name that
    /// did not resolve: all may go away when the request is sent again.
    public func isTransient(_ error: any Error) -> Bool {
        switch error {
        case let error as HTTPClientError:
            return [
                .connectTimeout, .readTimeout, .writeTimeout, .remoteConnectionClosed, .deadlineExceeded,
                .getConnectionFromPoolTimeout, .tlsHandshakeTimeout,
            ].contains(error)
        case is NIOConnectionError: return true
        case let error as ChannelError:
            if case .connectTimeout = error { return true }
            return error == .ioOnClosedChannel || error == .eof
        case let error as IOError:
            return [ECONNREFUSED, ECONNRESET, EPIPE, ETIMEDOUT, ENETUNREACH, EHOSTUNREACH].contains(error.errnoCode)
        default:
            return false
        }
    }

    /// The announced body length; none for `HEAD`, 1xx, 204 and 304, which have no body whatever they say.
    private static func expectedLength(_ response: HTTPClientResponse, method: String) -> Int? {
        let code = response.status.code
        guard method != "HEAD", code >= 200, code != 204, code != 304 else { return nil }
        return response.headers.first(name: "Content-Length").flatMap { Int($0) }
    }
}
