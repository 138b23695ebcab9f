import Foundation

/// One request as the suite's origin saw it (`conventions.origin.log`).
package struct OriginLogEntry: Sendable {
    /// The `Req-Num` the client sent; nil when absent or not a number.
    package let requestNumber: Int?
    package let method: String
    /// Request headers by lowercased name; repeated lines joined with ", ".
    package let requestHeaders: [String: String]
    /// For each response header the test marked `check`: every value the origin emitted for that
    /// name, joined with ", ", in the order first emitted.
    package let savedResponseHeaders: [(name: String, value: String)]
}
