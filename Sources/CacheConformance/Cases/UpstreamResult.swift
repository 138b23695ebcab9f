import Foundation

/// A published result: `true`, or `[ErrorName, message]`.
package enum UpstreamResult: Decodable, Sendable, Hashable {
    case passed
    case failed(name: String, message: String)

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let passed = try? container.decode(Bool.self) {
            self = passed ? .passed : .failed(name: "false", message: "")
            return
        }
        let parts = try container.decode([String].self)
        self = .failed(name: parts.first ?? "", message: parts.dropFirst().first ?? "")
    }
}
