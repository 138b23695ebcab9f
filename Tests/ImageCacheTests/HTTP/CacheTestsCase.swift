import Foundation

/// The parts of `../shared/http-cache-tests/cases.json` (an export of http-tests/cache-tests) that
/// the conformance replay reads. Field names follow the file; see its README and `conventions`.
struct CacheTestsFile: Decodable {
    let tests: [CacheTestsCase]

    static func load(from url: URL) throws -> CacheTestsFile {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(CacheTestsFile.self, from: Data(contentsOf: url))
    }
}

struct CacheTestsCase: Decodable {
    let id: String
    /// `required`, `optimal` or `check`.
    let kind: String
    let applies: Applies
    let requests: [Request]

    struct Applies: Decodable {
        let `private`: Bool
    }

    struct Request: Decodable {
        let num: Int
        let method: String
        let urlSuffix: String
        let requestHeaders: [HeaderSpec]
        let fetchOptions: [String: String]
        let magicIms: Bool
        let origin: Origin
        let pauseAfterS: Double
        let setup: Bool
        let expected: Expected
    }

    /// A header the test defines: a literal value, a date relative to the origin's clock, or a location.
    struct HeaderSpec: Decodable {
        let name: String
        let value: String?
        let dateOffsetS: Double?
        let dateFormat: String?
        let locationPath: String?
    }

    struct Origin: Decodable {
        let responseStatus: Status
        let responseHeaders: [HeaderSpec]
        let responsePauseS: Double
        let disconnect: Bool
        let interimResponses: [Ignored]
    }

    /// `[200, "OK"]`: only the code matters.
    struct Status: Decodable {
        let code: Int

        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            code = try container.decode(Int.self)
        }
    }

    struct Expected: Decodable {
        /// `cached`, `not_cached`, `etag_validated`, `lm_validated`, or nil.
        let type: String?
        let status: StatusExpectation
        let responseHeaders: [ResponseHeaderCheck]
        let responseHeadersMissing: [MissingHeaderCheck]
        let requestHeaders: [RequestHeaderCheck]
        let requestHeadersMissing: [RequestHeaderCheck]
    }

    struct StatusExpectation: Decodable {
        /// `equals`, `default_200_or_999` or `none`.
        let mode: String
        let value: Int?
    }

    struct ResponseHeaderCheck: Decodable {
        /// `equals`, `present` or `greater_than`.
        let op: String
        let name: String
        let value: String?
        let number: Double?
        let dateOffsetS: Double?
    }

    struct MissingHeaderCheck: Decodable {
        let name: String
        let upstreamEffective: Bool?
    }

    struct RequestHeaderCheck: Decodable {
        let name: String
        let value: String?
    }

    /// Any JSON value, skipped.
    struct Ignored: Decodable {
        init(from decoder: any Decoder) throws {}
    }
}
