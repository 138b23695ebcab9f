import Foundation

/// How one test ended, in the published results' terms: `true`, or `[ErrorName, message]`.
package enum TestOutcome: Sendable, Hashable, Encodable {
    /// Every check passed.
    case passed
    /// A check failed (`Assertion`), a setup check failed (`Setup`), or the run broke with an error
    /// of that name (`HTTPCacheError`, `TypeError`, `Timeout`).
    case failed(name: String, message: String)
    /// The cache's API cannot express the test; counts as not passed.
    case notApplicable(reason: String)

    package var isPassed: Bool { self == .passed }

    /// `true`, or `[name, message]` (`["NotApplicable", reason]` for a test the API cannot express).
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .passed: try container.encode(true)
        case let .failed(name, message): try container.encode([name, message])
        case let .notApplicable(reason): try container.encode(["NotApplicable", reason])
        }
    }
}
