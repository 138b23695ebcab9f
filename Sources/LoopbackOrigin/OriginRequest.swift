import Foundation

/// A request the origin received, as it arrived: method, target, headers in order, body.
public struct OriginRequest: Sendable, Hashable {
    /// The request method, such as `GET`.
    public var method: String
    /// The request target: path and query.
    public var target: String
    /// The header lines in the order received; repeated names stay separate.
    public var headers: [HeaderLine]
    /// The body, empty when there was none.
    public var body: Data
    /// When the request's head arrived.
    public var receivedAt: Date

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The path without the query.
    public var path: String { String(target.prefix { $0 != "?" }) }
}

/// One header line: a name and a value, as written.
public struct HeaderLine: Sendable, Hashable {
    /// The field name.
    public var name: String
    /// The field value.
    public var value: String

    /// Creates a header line.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}
