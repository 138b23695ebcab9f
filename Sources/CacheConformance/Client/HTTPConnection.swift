import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// One keep-alive HTTP/1.1 connection: one exchange at a time, driven by ``ExchangeHandler``.
final class HTTPConnection: Sendable {
    let channel: any Channel
    /// `host:port`, the pool it returns to.
    let key: String
    /// Set by ``close()`` at once, before the channel has closed: a connection being closed is
    /// never handed out again, even if its last exchange has just returned it to the pool.
    private let closing = NIOLockedValueBox(false)

    private init(channel: any Channel, key: String) {
        self.channel = channel
        self.key = key
    }

    static func connect(host: String, port: Int, key: String, group: any EventLoopGroup) async throws -> HTTPConnection {
        let channel = try await ClientBootstrap(group: group)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .connectTimeout(.seconds(10))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(ExchangeHandler())
                }
            }
            .connect(host: host, port: port).get()
        return HTTPConnection(channel: channel, key: key)
    }

    /// Sends the exchange's request and waits for the response head; the body follows on its stream.
    func start(_ exchange: ExchangeStart) async throws -> NIOHTTP1.HTTPResponseHead {
        // A write the channel refuses (it closed meanwhile) never reaches the handler, which
        // otherwise succeeds the write as it takes the exchange over: fail the exchange here.
        channel.writeAndFlush(exchange).whenFailure { error in
            exchange.responseHead.fail(error)
            exchange.chunks.finish(throwing: error)
            exchange.finished(false)
        }
        return try await exchange.responseHead.futureResult.get()
    }

    /// Whether the connection can carry another exchange.
    var isReusable: Bool { !closing.withLockedValue { $0 } && channel.isActive }

    func close() {
        closing.withLockedValue { $0 = true }
        channel.close(promise: nil)
    }
}
