import Metrics
import NIOCore
import NIOHTTP1

/// Answers on the event loop, inside the channel, the requests ``ImageProxy/answerAtOnce(path:accept:ifNoneMatch:)``
/// can answer without waiting (an image whose answer the memory tier still backs, a bad path or
/// signature), and passes every other request on to Hummingbird. It sits right after SwiftNIO's
/// HTTP/1.1 codec (``ProxyHTTPChannel``), so a hit costs a lookup and a write: no conversion to
/// HTTP types, no task, no change of thread, no router.
///
/// Answers keep the connection's order: while a request passed on has not had its response
/// written, later requests are passed on too (an HTTP/1.1 client may send the next before the
/// last is answered). Requests of another HTTP version or method than HTTP/1.1 GET, with a body or
/// a `Connection` field other than `keep-alive`, and the server's own routes, are always passed
/// on, and so is everything once the server has been asked to shut down, so that Hummingbird
/// closes each connection after its last response.
final class MemoryAnswerHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let proxy: ImageProxy
    /// Counts the answers given here (`…_proxy_answers_at_once_total`), when metrics are on.
    private let answered: Counter?
    /// The answer to the request being read, given once its end arrives.
    private var answer: ProxyAnswer?
    /// Requests passed on whose response has not ended yet.
    private var passedOn = 0
    private var isQuiescing = false

    init(proxy: ImageProxy, answered: Counter?) {
        self.proxy = proxy
        self.answered = answered
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case let .head(request):
            if let ready = answerAtOnce(request) {
                answer = ready
            } else {
                passedOn += 1
                context.fireChannelRead(data)
            }
        case .body:
            // A request with a body is passed on at its head, so a body here is a passed-on request's.
            context.fireChannelRead(data)
        case .end:
            guard let ready = answer else { return context.fireChannelRead(data) }
            answer = nil
            // Counted before it is written, so a client that has read the answer reads the count with it.
            answered?.increment()
            context.write(wrapOutboundOut(.head(ready.head)), promise: nil)
            if ready.body.readableBytes > 0 { context.write(wrapOutboundOut(.body(.byteBuffer(ready.body))), promise: nil) }
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { passedOn -= 1 }
        context.write(data, promise: promise)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent { isQuiescing = true }
        context.fireUserInboundEventTriggered(event)
    }

    private func answerAtOnce(_ request: HTTPRequestHead) -> ProxyAnswer? {
        guard passedOn == 0, !isQuiescing, request.method == .GET, request.version == .http1_1,
            request.headers.first(name: "connection").map({ $0.lowercased() == "keep-alive" }) ?? true,
            !request.headers.contains(name: "content-length"), !request.headers.contains(name: "transfer-encoding")
        else { return nil }
        let target = request.uri
        let path = target.utf8.firstIndex(of: UInt8(ascii: "?")).map { String(target[..<$0]) } ?? target
        guard path.utf8.first == UInt8(ascii: "/"), !ProxyServer.ownRoutes.contains(path) else { return nil }
        return proxy.answerAtOnce(
            path: path, accept: request.headers.first(name: "accept"), ifNoneMatch: request.headers.first(name: "if-none-match"))
    }
}
