import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// A real HTTP/1.1 origin server on 127.0.0.1 for tests, the conformance harness and the demo.
///
/// Every response is whatever the handler returns, byte for byte: status, header order, repeated
/// names, `Date`; a body is framed by a `Content-Length` the handler sets (cut there if longer, and
/// the connection then closed). Connections are kept alive and `TCP_NODELAY` is set, so a request costs about a
/// millisecond. Every request is logged. It serves from a thread of its own (``OriginExecutor``),
/// so tests that keep Swift's shared pool busy do not stop it answering.
///
/// ```swift
/// let origin = try await LoopbackOrigin.start { request in
///     OriginResponse(headers: [HeaderLine("Cache-Control", "max-age=60")], body: png)
/// }
/// defer { Task { await origin.stop() } }
/// let url = origin.url("/a.png")
/// ```
public final class LoopbackOrigin: Sendable {
    /// Produces the response for each request.
    public typealias Handler = @Sendable (OriginRequest) async -> OriginResponse

    /// The port the origin listens on.
    public let port: Int
    private let serverChannel: Channel
    /// The accept loop; it ends by itself once the listener is closed.
    private let serving: Task<Void, Never>
    private let log = NIOLockedValueBox<[OriginRequest]>([])
    private let deliveryLog = NIOLockedValueBox<[OriginDelivery]>([])
    /// Set by ``stop()``: a connection kept alive from before answers nothing more.
    private let stopped: NIOLockedValueBox<Bool>
    private let unserved: UnservedConnections

    private init(
        port: Int, serverChannel: Channel, serving: Task<Void, Never>, stopped: NIOLockedValueBox<Bool>,
        unserved: UnservedConnections
    ) {
        self.port = port
        self.serverChannel = serverChannel
        self.serving = serving
        self.stopped = stopped
        self.unserved = unserved
    }

    /// Starts listening on an ephemeral port of 127.0.0.1.
    public static func start(handler: @escaping Handler) async throws -> LoopbackOrigin {
        // Every connection's task inherits the preference, and the handler runs in it.
        let executor = OriginExecutor()
        let unserved = UnservedConnections(executor: executor)
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    return unserved.hold(
                        try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(
                            wrappingChannelSynchronously: channel))
                }
            }
        let port = server.channel.localAddress?.port ?? 0
        let recorder = NIOLockedValueBox<LoopbackOrigin?>(nil)
        let stopped = NIOLockedValueBox(false)
        let serving = Task<Void, Never>(executorPreference: executor) {
            // Ends when stop() closes the server channel; connection errors end only that connection.
            _ = try? await withThrowingDiscardingTaskGroup { group in
                try await server.executeThenClose { connections in
                    for try await connection in connections {
                        guard unserved.claim(connection) else { continue }
                        group.addTask {
                            await Self.serve(connection, handler: handler) {
                                stopped.withLockedValue { $0 }
                            } record: { request in
                                recorder.withLockedValue { $0?.log.withLockedValue { $0.append(request) } }
                            } recordDelivery: { delivery in
                                recorder.withLockedValue { $0?.deliveryLog.withLockedValue { $0.append(delivery) } }
                            }
                        }
                    }
                }
                // The server channel is closed and every connection it accepted has a task of its
                // own (one accepted but left unconsumed would trap in NIO when dropped): end them.
                group.cancelAll()
            }
        }
        let origin = LoopbackOrigin(
            port: port, serverChannel: server.channel, serving: serving, stopped: stopped, unserved: unserved)
        recorder.withLockedValue { $0 = origin }
        return origin
    }

    /// `http://127.0.0.1:PORT` followed by `path`.
    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path.hasPrefix("/") ? path : "/" + path)")!
    }

    /// Every request received so far, in arrival order.
    public var requests: [OriginRequest] { log.withLockedValue { $0 } }

    /// How far each response was written, in the order they ended (a response whose connection
    /// broke off shows as not ``OriginDelivery/completed``).
    public var deliveries: [OriginDelivery] { deliveryLog.withLockedValue { $0 } }

    /// Forgets the request and delivery logs.
    public func clearLog() {
        log.withLockedValue { $0.removeAll() }
        deliveryLog.withLockedValue { $0.removeAll() }
    }

    /// Stops listening and closes every connection.
    ///
    /// Closing the listener ends the accept loop, which then ends the open connections; cancelling
    /// the loop instead could drop a connection accepted a moment before, which NIO traps on.
    public func stop() async {
        // The connections end once the accept loop does, a moment later; a client reusing one in
        // that moment must find the origin gone, not answering.
        stopped.withLockedValue { $0 = true }
        try? await serverChannel.close()
        unserved.closeAll()
    }

    private static func serve(
        _ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, handler: Handler,
        isStopped: @Sendable () -> Bool, record: @Sendable (OriginRequest) -> Void,
        recordDelivery: @Sendable (OriginDelivery) -> Void
    ) async {
        try? await connection.executeThenClose { inbound, outbound in
            var head: HTTPRequestHead?
            var body = ByteBuffer()
            var receivedAt = Date()
            for try await part in inbound {
                switch part {
                case let .head(requestHead):
                    head = requestHead
                    body.clear()
                    receivedAt = Date()
                case var .body(chunk):
                    body.writeBuffer(&chunk)
                case .end:
                    guard let head else { continue }
                    if isStopped() { return }  // hang up, as a stopped server would
                    let request = OriginRequest(
                        method: head.method.rawValue, target: head.uri,
                        headers: head.headers.map { HeaderLine($0.name, $0.value) },
                        body: Data(body.readableBytesView), receivedAt: receivedAt)
                    record(request)
                    let response = await handler(request)
                    if response.delay > .zero { try await Task.sleep(for: response.delay) }
                    if response.disconnect { return }
                    var delivery = OriginDelivery(target: request.target, bodyBytesWritten: 0, completed: false)
                    let reusable: Bool
                    do {
                        let channel = connection.channel
                        reusable = try await write(
                            response, for: head, to: outbound, delivery: &delivery, isOpen: { channel.isActive })
                    } catch {
                        recordDelivery(delivery)
                        throw error
                    }
                    recordDelivery(delivery)
                    if !reusable { return }
                }
            }
        }
    }

    /// Writes `response`, and says whether the connection can carry another exchange.
    ///
    /// A body that differs from a `Content-Length` the handler set is framed by that length, and the
    /// connection closes after it: a longer body is cut there (a client reads no further, and a
    /// client reusing the connection would take the excess for the start of its next response), a
    /// shorter one leaves the exchange unfinished.
    private static func write(
        _ response: OriginResponse, for head: HTTPRequestHead, to outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>,
        delivery: inout OriginDelivery, isOpen: @Sendable () -> Bool
    ) async throws -> Bool {
        var headers = HTTPHeaders()
        for line in response.headers { headers.add(name: line.name, value: line.value) }
        let bodyless = head.method == .HEAD || response.status == 204 || response.status == 304 || response.status < 200
        var body = response.body
        var reusable = true
        if let announced = headers.first(name: "Content-Length") {
            let length = Int(announced)
            if !bodyless, length != body.count {
                reusable = false
                if let length, length >= 0, length < body.count { body = body.prefix(length) }
            }
        } else if !bodyless {
            headers.add(name: "Content-Length", value: String(body.count))
        }
        let status = HTTPResponseStatus(statusCode: response.status)
        try await outbound.write(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers)))
        if !bodyless && !body.isEmpty {
            let pieceBytes = max(response.bodyPacing?.chunkBytes ?? body.count, 1)
            var offset = body.startIndex
            var held = false
            while offset < body.endIndex {
                let piece = body[offset..<min(offset + pieceBytes, body.endIndex)]
                try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: piece))))
                delivery.bodyBytesWritten += piece.count
                offset += piece.count
                guard let pacing = response.bodyPacing, offset < body.endIndex else { continue }
                if !held, let hold = pacing.holdAfterBytes, delivery.bodyBytesWritten >= hold {
                    held = true
                    let deadline = ContinuousClock.now + pacing.holdLimit
                    while isOpen(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
                }
                try await Task.sleep(for: pacing.interval)
            }
        }
        try await outbound.write(.end(nil))
        delivery.completed = true
        return reusable
    }
}
