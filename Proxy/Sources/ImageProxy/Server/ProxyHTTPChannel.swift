import HTTPTypes
import HummingbirdCore
import Logging
import Metrics
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// Hummingbird's HTTP/1.1 child channel with the proxy's answers from memory in it: SwiftNIO's
/// HTTP/1.1 codec, then ``MemoryAnswerHandler`` (so that a hit is answered in SwiftNIO's own
/// types), then what Hummingbird's `HTTP1Channel` puts there (the conversion to HTTP types, the
/// connection state that closes idle connections on shutdown, and the responder's async channel).
struct ProxyHTTPChannel: HTTPChannelHandler {
    typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    let responder: HTTPChannelHandler.Responder
    let proxy: ImageProxy
    let answered: Counter?

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            // Hummingbird handles errors and has HTTP types check the fields it writes; the
            // answers from memory write fields the proxy made.
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                withPipeliningAssistance: false, withErrorHandling: false, withOutboundHeaderValidation: false)
            try channel.pipeline.syncOperations.addHandler(MemoryAnswerHandler(proxy: proxy, answered: answered))
            try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            try channel.pipeline.syncOperations.addHandler(HTTPConnectionStateHandler(idleTimeout: nil, logger: logger))
            return try NIOAsyncChannel(wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
        }
    }

    func handle(value: Value, logger: Logger) async {
        await handleHTTP(asyncChannel: value, logger: logger)
    }
}
