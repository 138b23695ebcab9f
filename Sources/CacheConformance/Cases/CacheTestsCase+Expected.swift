import Foundation

extension CacheTestsCase {
    /// What the client checks about one response, and what the origin must have seen.
    package struct Expected: Decodable, Sendable {
        /// `cached`, `not_cached`, `etag_validated`, `lm_validated`, or nil.
        package let type: String?
        package let status: StatusExpectation
        package let body: BodyExpectation
        /// The method the origin must have seen, when checked.
        package let method: String?
        package let responseHeaders: [ResponseHeaderCheck]
        package let responseHeadersMissing: [MissingHeaderCheck]
        package let requestHeaders: [RequestHeaderCheck]
        package let requestHeadersMissing: [RequestHeaderCheck]
        /// For each check name (`type`, `status`, `body`, …): whether its failure is a setup failure.
        package let setupLevel: [String: Bool?]

        /// Whether a failure of `check` makes the test a setup failure.
        package func isSetup(_ check: String) -> Bool { (setupLevel[check] ?? nil) ?? false }
    }

    package struct StatusExpectation: Decodable, Sendable {
        /// `equals`, `default_200_or_999` or `none`.
        package let mode: String
        package let value: Int?
        package let setupLevel: Bool?
        /// For `default_200_or_999`: whether a 999 ("should have been conditional") is a setup failure.
        package let setupLevel999: Bool?
    }

    package struct BodyExpectation: Decodable, Sendable {
        /// `test_token_unless_no_body`, `equals` or `none`.
        package let mode: String
        package let value: String?
        package let setupLevel: Bool?
    }

    package struct ResponseHeaderCheck: Decodable, Sendable {
        /// `equals`, `equals_header`, `present` or `greater_than`.
        package let op: String
        package let name: String
        package let value: String?
        package let number: Double?
        package let dateOffsetS: Double?
        package let dateFormat: String?
        /// For `equals_header`: the header whose value must be equal.
        package let otherHeader: String?
    }

    package struct MissingHeaderCheck: Decodable, Sendable {
        package let name: String
        /// False for the upstream checks that never fire (they read an undefined property).
        package let upstreamEffective: Bool?
    }

    package struct RequestHeaderCheck: Decodable, Sendable {
        package let name: String
        package let value: String?
    }
}
