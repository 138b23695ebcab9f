import Foundation

/// How far the origin got in writing one response: the whole body, or only part of it because
/// the client closed the connection first (a cancelled transfer).
public struct OriginDelivery: Sendable, Hashable {
    /// The request target the response answered.
    public var target: String
    /// The body bytes handed to the connection before it ended.
    public var bodyBytesWritten: Int
    /// Whether the response was written to its end.
    public var completed: Bool
}
