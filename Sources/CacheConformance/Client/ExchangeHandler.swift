import Foundation
import NIOCore
import NIOHTTP1

/// What starts an exchange on a connection: the request, and where its response goes.
struct ExchangeStart: Sendable {
    let head: NIOHTTP1.HTTPRequestHead
    let body: ByteBuffer?
    let responseHead: EventLoopPromise<NIOHTTP1.HTTPResponseHead>
    let chunks: AsyncThrowingStream<Data, any Error>.Continuation
    /// How long the response may go without a byte arriving.
    let idleTimeout: TimeAmount
    /// Called once the exchange is over; true when the connection may carry another.
    let finished: @Sendable (_ reusable: Bool) -> Void
}

/// Writes an ``ExchangeStart``'s request and routes the response to it: head to its promise, body
/// bytes to its stream. Every failure (a closed connection, an error, the idle timeout) ends the
/// exchange with an error and the connection with it. Lives on the channel's event loop.
final class ExchangeHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = ExchangeStart
    typealias OutboundOut = HTTPClientRequestPart

    private var exchange: ExchangeStart?
    private var headDelivered = false
    private var keepAlive = true
    /// A 1xx head is followed by its own end; neither belongs to the exchange.
    private var inInterimResponse = false
    private var timeout: Scheduled<Void>?

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let start = unwrapOutboundIn(data)
        exchange = start
        headDelivered = false
        keepAlive = true
        armTimeout(context)
        context.write(wrapOutboundOut(.head(start.head)), promise: nil)
        if let body = start.body { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
        context.write(wrapOutboundOut(.end(nil)), promise: nil)
        // The exchange is this handler's now; from here on its failures end it (see `fail`).
        promise?.succeed(())
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let exchange else { return }
        armTimeout(context)
        switch unwrapInboundIn(data) {
        case let .head(head) where (100..<200).contains(head.status.code):
            inInterimResponse = true
        case let .head(head):
            headDelivered = true
            keepAlive = head.isKeepAlive
            exchange.responseHead.succeed(head)
        case let .body(bytes):
            exchange.chunks.yield(Data(bytes.readableBytesView))
        case .end where inInterimResponse:
            inInterimResponse = false
        case .end:
            timeout?.cancel()
            self.exchange = nil
            exchange.chunks.finish()
            exchange.finished(keepAlive)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(NIOHTTPTransportError.connectionClosed)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(error)
        context.close(promise: nil)
    }

    private func armTimeout(_ context: ChannelHandlerContext) {
        timeout?.cancel()
        guard let exchange else { return }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timeout = context.eventLoop.scheduleTask(in: exchange.idleTimeout) {
            let (handler, context) = loopBound.value
            handler.fail(NIOHTTPTransportError.timedOut)
            context.close(promise: nil)
        }
    }

    private func fail(_ error: any Error) {
        timeout?.cancel()
        guard let exchange else { return }
        self.exchange = nil
        if headDelivered {
            exchange.chunks.finish(throwing: error)
        } else {
            exchange.responseHead.fail(error)
            exchange.chunks.finish(throwing: error)
        }
        exchange.finished(false)
    }
}
