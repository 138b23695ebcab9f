import Foundation

/// The checks on what the origin saw, after the last request (`conventions.origin_log_checks_after_test`).
///
/// Requests expected from the cache are skipped; every other request is matched with the next log
/// entry in turn, as upstream does, even when the cache answered it after all.
struct OriginLogChecks {
    let test: CacheTestsCase
    /// The response each request received, by position.
    let responses: [ReceivedResponse]
    let log: [OriginLogEntry]

    /// Names never compared between origin and client (`constants.SKIP_IMPLICIT_CHECK`): `Date`
    /// changes on its own.
    private static let skippedNames: Set<String> = ["date"]

    func check() throws {
        var index = 0
        for (position, request) in test.requests.enumerated() {
            let expected = request.expected
            let number = request.num
            let typeSetup = expected.isSetup("type")
            if expected.type == "cached" { continue }
            let entry = index < log.count ? log[index] : nil
            index += 1
            if expected.type == "not_cached" {
                guard let entry else { throw MissingLogEntry(property: "request_num") }
                try CheckFailure.require(
                    entry.requestNumber == number, setup: typeSetup,
                    "Response \(number) comes from cache (\(entry.requestNumber.map(String.init) ?? "NaN") on server)")
            }
            for validator in Self.validators(for: expected.type) {
                try CheckFailure.require(entry != nil, setup: typeSetup, "request \(number) wasn't sent to server")
                try CheckFailure.require(
                    entry?.requestHeaders[validator] != nil, setup: typeSetup, "request \(number) doesn't have \(validator) header")
            }
            try checkRequestHeaders(request, entry)
            if let entry, position < responses.count { try checkOriginHeaders(entry, reached: responses[position], number) }
            if let method = expected.method {
                guard let entry else { throw MissingLogEntry(property: "request_method") }
                try CheckFailure.require(
                    entry.method == method, setup: expected.isSetup("method"),
                    "Request \(number) had method \(entry.method), not \(method)")
            }
        }
    }

    private static func validators(for type: String?) -> [String] {
        switch type {
        case "etag_validated": ["if-none-match"]
        case "lm_validated": ["if-modified-since"]
        default: []
        }
    }

    private func checkRequestHeaders(_ request: CacheTestsCase.Request, _ entry: OriginLogEntry?) throws {
        let expected = request.expected
        let number = request.num
        for check in expected.requestHeaders {
            guard let entry else { throw MissingLogEntry(property: "request_headers") }
            let actual = entry.requestHeaders[check.name.lowercased()]
            if let value = check.value {
                try CheckFailure.require(
                    actual == value, setup: expected.isSetup("request_headers"),
                    "Request \(number) header \(check.name) is \"\(actual ?? "undefined")\", not \"\(value)\"")
            } else {
                try CheckFailure.require(
                    actual != nil, setup: expected.isSetup("request_headers"), "Request \(number) \(check.name) header not present.")
            }
        }
        for check in expected.requestHeadersMissing {
            guard let entry else { throw MissingLogEntry(property: "request_headers") }
            let actual = entry.requestHeaders[check.name.lowercased()]
            if let value = check.value {
                try CheckFailure.require(
                    actual != value, setup: expected.isSetup("request_headers_missing"),
                    "Request \(number) header \(check.name) is \"\(actual ?? "undefined")\"")
            } else {
                try CheckFailure.require(
                    actual == nil, setup: expected.isSetup("request_headers_missing"), "Request \(number) \(check.name) header present.")
            }
        }
    }

    /// Every header the origin sent with `check` must reach the client unchanged (always a setup check).
    private func checkOriginHeaders(_ entry: OriginLogEntry, reached response: ReceivedResponse, _ number: Int) throws {
        for saved in entry.savedResponseHeaders where !Self.skippedNames.contains(saved.name.lowercased()) {
            let received = response.header(saved.name)
            try CheckFailure.require(
                received == saved.value, setup: true,
                "Response \(number) header \(saved.name) is \"\(received ?? "null")\", not \"\(saved.value)\"")
        }
    }
}
