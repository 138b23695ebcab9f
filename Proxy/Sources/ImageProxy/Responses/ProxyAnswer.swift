import Foundation
import HTTPTypes
import NIOCore

/// What the proxy answers one request with: a response head and a body, as plain values that
/// both of the proxy's ways of sending (Hummingbird's responder, and the event loop's own answers
/// from memory, ``MemoryAnswerHandler``) write as they are.
public struct ProxyAnswer: Sendable {
    /// The status and header fields.
    public var head: HTTPResponse
    /// The body; empty for a 304.
    public var body: ByteBuffer

    /// The status code.
    public var status: Int { head.status.code }

    /// An answer.
    public init(status: Int, fields: HTTPFields = HTTPFields(), body: ByteBuffer = ByteBuffer()) {
        head = HTTPResponse(status: HTTPResponse.Status(code: status), headerFields: fields)
        self.body = body
    }

    /// A plain-text error answer with `message`, never stored by a cache downstream.
    public static func error(_ status: Int, _ message: String, retryAfter: Int? = nil) -> ProxyAnswer {
        var fields: HTTPFields = [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"]
        if let retryAfter { fields[.retryAfter] = String(retryAfter) }
        return ProxyAnswer(status: status, fields: fields, body: ByteBuffer(string: message + "\n"))
    }
}
