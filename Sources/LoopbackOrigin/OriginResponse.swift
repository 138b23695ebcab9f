import Foundation

/// What the origin answers: any status, any headers in order, a body, and misbehaviours on demand.
public struct OriginResponse: Sendable, Hashable {
    /// The status code; any number, including ones HTTP does not define (such as 999).
    public var status: Int
    /// Header lines written in this order; nothing is added except `Content-Length` when absent.
    public var headers: [HeaderLine]
    /// The body (not sent for HEAD, 204 and 304).
    public var body: Data
    /// How long to wait before answering.
    public var delay: Duration
    /// Close the connection instead of answering.
    public var disconnect: Bool
    /// Write the body a piece at a time instead of at once; nil (the default) writes it at once.
    public var bodyPacing: BodyPacing?

    /// Creates a response.
    public init(status: Int = 200, headers: [HeaderLine] = [], body: Data = Data(), delay: Duration = .zero, disconnect: Bool = false,
        bodyPacing: BodyPacing? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
        self.disconnect = disconnect
        self.bodyPacing = bodyPacing
    }

    /// A response that closes the connection without answering.
    public static var dropConnection: OriginResponse { OriginResponse(disconnect: true) }

    /// An RFC 9110 IMF-fixdate for `date`, as `Date:` and `Last-Modified:` carry.
    public static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
