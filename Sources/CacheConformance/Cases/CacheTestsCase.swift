import Foundation

/// One test of the suite: a sequence of requests, what the origin does for each, and what is expected.
package struct CacheTestsCase: Decodable, Sendable {
    package let id: String
    package let name: String
    /// `required` (conformance), `optimal` (efficiency) or `check` (informational).
    package let kind: String
    package let applies: Applies
    package let requests: [Request]
    /// What each published implementation scored: `true`, or `[ErrorName, message]`; absent when not run.
    package let upstreamResults: [String: UpstreamResult?]

    package struct Applies: Decodable, Sendable {
        /// Whether the test is meant for a private cache (the upstream browser run).
        package let `private`: Bool
    }

    package struct Request: Decodable, Sendable {
        /// The 1-based position in the test: the `Req-Num` the origin picks its config by.
        package let num: Int
        package let method: String
        /// Appended to `/test/<token>`: `""`, `/filename`, or `?query`.
        package let urlSuffix: String
        package let requestHeaders: [HeaderSpec]
        package let requestBody: String?
        /// fetch() options: `redirect: manual` here means "do not follow redirects".
        package let fetchOptions: [String: String]
        /// `If-Modified-Since` in the request is a date relative to the previous response's `Server-Now`.
        package let magicIms: Bool
        package let origin: Origin
        /// Real seconds to wait after this request's response.
        package let pauseAfterS: Double
        /// Every check of this request is a setup check.
        package let setup: Bool
        /// The checks (`expected_type`, …) that are setup checks for this request.
        package let setupTests: [String]
        package let expected: Expected
    }

    /// A header a test defines: a literal value, a date relative to the origin's clock, or a location
    /// relative to the request's path. `check` says whether the client must receive it unchanged.
    package struct HeaderSpec: Decodable, Sendable {
        package let name: String
        package let value: String?
        package let dateOffsetS: Double?
        /// `imf-fixdate` or `rfc850`.
        package let dateFormat: String?
        package let locationPath: String?
        package let check: Bool?
    }

    /// What the origin does for one request.
    package struct Origin: Decodable, Sendable {
        /// `fixed`, or `conditional_304_or_999` for `*_validated` requests.
        package let statusRule: String
        package let responseStatus: Status
        package let responseHeaders: [HeaderSpec]
        /// The body; nil or empty means the test token.
        package let responseBody: String?
        package let responsePauseS: Double
        /// Close the connection instead of answering.
        package let disconnect: Bool
        package let interimResponses: [Ignored]
    }

    /// `[200, "OK"]`: only the code matters.
    package struct Status: Decodable, Sendable {
        package let code: Int

        package init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            code = try container.decode(Int.self)
        }
    }

    /// Any JSON value, skipped.
    package struct Ignored: Decodable, Sendable {
        package init(from decoder: any Decoder) throws {}
    }
}
