import Foundation
import NIOCore
import NIOHTTP1

/// What the proxy answers one request with: a response head and a body, as plain values that
/// both of the proxy's ways of sending write as they are: the event loop's own answers from
/// memory (`MemoryAnswerHandler`, in SwiftNIO's HTTP/1.1 types, before any conversion), and
/// Hummingbird's responder (``ProxyServer``, which converts them).
public struct ProxyAnswer: Sendable {
    /// The status line and header fields, as SwiftNIO writes them.
    public var head: HTTPResponseHead
    /// The body; empty for a 304.
    public var body: ByteBuffer

    /// The status code.
    public var status: Int { Int(head.status.code) }

    /// An answer.
    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: ByteBuffer = ByteBuffer()) {
        self.init(head: HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: headers), body: body)
    }

    /// An answer with a head made before.
    public init(head: HTTPResponseHead, body: ByteBuffer = ByteBuffer()) {
        self.head = head
        self.body = body
    }

    /// A plain-text error answer with `message`, never stored by a cache downstream.
    public static func error(_ status: Int, _ message: String, retryAfter: Int? = nil) -> ProxyAnswer {
        let body = ByteBuffer(string: message + "\n")
        var headers: HTTPHeaders = [
            "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", "Content-Length": String(body.readableBytes),
        ]
        if let retryAfter { headers.add(name: "Retry-After", value: String(retryAfter)) }
        return ProxyAnswer(status: status, headers: headers, body: body)
    }
}
