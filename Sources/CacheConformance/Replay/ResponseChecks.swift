import Foundation

/// The checks on each response as it arrives (`conventions.client_checks_per_response`), in
/// upstream's order; the first failure ends the test.
struct ResponseChecks {
    let request: CacheTestsCase.Request
    let token: String

    private var expected: CacheTestsCase.Expected { request.expected }
    private var number: Int { request.num }

    func check(_ response: ReceivedResponse) throws {
        try checkRetries(response)
        try checkType(response)
        try checkStatus(response)
        try checkHeaders(response)
        try checkBody(response)
    }

    /// A repeated number in `Request-Numbers` means something retried a request.
    private func checkRetries(_ response: ReceivedResponse) throws {
        guard let numbers = response.header("Request-Numbers")?.split(separator: " ") else { return }
        try CheckFailure.require(Set(numbers).count == numbers.count, setup: true, "retry")
    }

    /// Whether the response came from the cache: its `Server-Request-Count` is below this `Req-Num`.
    private func checkType(_ response: ReceivedResponse) throws {
        let served = response.integerPrefix(of: "Server-Request-Count")
        let setup = expected.isSetup("type")
        switch expected.type {
        case "cached":
            if response.status == 304 && served == nil { return }
            try CheckFailure.require(
                served.map { $0 < number } ?? false, setup: setup, "Response \(number) does not come from cache")
        case "not_cached":
            try CheckFailure.require(served == number, setup: setup, "Response \(number) comes from cache")
        default:
            break
        }
    }

    private func checkStatus(_ response: ReceivedResponse) throws {
        let status = expected.status
        switch status.mode {
        case "equals":
            guard let value = status.value else { return }
            try CheckFailure.require(
                response.status == value, setup: status.setupLevel ?? true,
                "Response \(number) status is \(response.status), not \(value)")
        case "default_200_or_999":
            if response.status == 999 {
                throw CheckFailure(
                    setup: status.setupLevel999 ?? true,
                    message: "Request \(number) should have been conditional, but it was not.")
            }
            try CheckFailure.require(
                response.status == 200, setup: true, "Response \(number) status is \(response.status), not 200")
        default:
            break
        }
    }

    private func checkHeaders(_ response: ReceivedResponse) throws {
        let setup = expected.isSetup("response_headers")
        for check in expected.responseHeaders {
            let actual = response.header(check.name)
            switch check.op {
            case "present":
                try CheckFailure.require(actual != nil, setup: setup, "Response \(number) \(check.name) header not present.")
            case "greater_than":
                try CheckFailure.require(actual != nil, setup: setup, "Response \(number) \(check.name) header not present.")
                let limit = check.number ?? 0
                try CheckFailure.require(
                    response.integerPrefix(of: check.name).map { Double($0) > limit } ?? false, setup: setup,
                    "Response \(number) header \(check.name) is \(actual ?? "null"), should be bigger than \(limit)")
            case "equals_header":
                try CheckFailure.require(actual != nil, setup: setup, "Response \(number) \(check.name) header not present.")
                let other = check.otherHeader.flatMap(response.header)
                try CheckFailure.require(
                    actual == other, setup: setup,
                    "Response \(number) header \(check.name) is \(actual ?? "null"), should match \(check.otherHeader ?? "") (\(other ?? "null"))")
            default:
                let wanted = wantedValue(check, response)
                try CheckFailure.require(
                    actual == wanted, setup: setup,
                    "Response \(number) header \(check.name) is \"\(actual ?? "null")\", not \"\(wanted ?? "undefined")\"")
            }
        }
        let missingSetup = expected.isSetup("response_headers_missing")
        // Checks with a value never fired upstream (they read an undefined property); neither do they here.
        for check in expected.responseHeadersMissing where check.upstreamEffective ?? true {
            try CheckFailure.require(
                response.header(check.name) == nil, setup: missingSetup,
                "Response \(number) includes unexpected header \(check.name): \"\(response.header(check.name) ?? "")\"")
        }
    }

    /// An `equals` check's value: literal, or a date relative to the received response's `Server-Now`.
    private func wantedValue(_ check: CacheTestsCase.ResponseHeaderCheck, _ response: ReceivedResponse) -> String? {
        guard let offset = check.dateOffsetS else { return check.value }
        guard let serverNow = response.serverNow else { return nil }
        return HeaderValues.date(serverNow.addingTimeInterval(offset), format: check.dateFormat)
    }

    private func checkBody(_ response: ReceivedResponse) throws {
        let body = expected.body
        switch body.mode {
        case "equals":
            guard let value = body.value else { return }
            try CheckFailure.require(
                response.body == value, setup: body.setupLevel ?? true,
                "Response body is \"\(response.body)\", not \"\(value)\"")
        case "test_token_unless_no_body":
            guard response.status != 204, response.status != 304, request.method != "HEAD" else { return }
            try CheckFailure.require(
                response.body == token, setup: body.setupLevel ?? true, "Response body is \"\(response.body)\", not \"\(token)\"")
        default:
            break
        }
    }
}
