import Foundation

/// What the proxy answers one request with, before it becomes a Hummingbird response: kept free
/// of the server framework so the decisions read (and test) as plain values.
public struct ProxyAnswer: Sendable {
    /// The status code.
    public var status: Int
    /// Header fields, in order.
    public var headers: [(name: String, value: String)]
    /// The body; empty for a 304.
    public var body: Data

    /// An answer.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A plain-text error answer with `message`, never stored by a cache downstream.
    public static func error(_ status: Int, _ message: String, retryAfter: Int? = nil) -> ProxyAnswer {
        var headers: [(name: String, value: String)] = [
            ("Content-Type", "text/plain; charset=utf-8"), ("Cache-Control", "no-store"),
        ]
        if let retryAfter { headers.append(("Retry-After", String(retryAfter))) }
        return ProxyAnswer(status: status, headers: headers, body: Data((message + "\n").utf8))
    }
}
