import CacheConformance
import Foundation

@testable import HTTPCaching
@testable import ImageCache

/// The harness's checks, as `conventions` in cases.json states them.
extension CacheTestsReplay {
    /// `client_checks_per_response`: came from the cache or not, status, headers present and missing.
    static func checkClientSide(
        _ request: CacheTestsCase.Request, _ received: Received, into report: inout Report
    ) {
        let number = request.num
        let expected = request.expected
        let servedNumber = received.headers.firstValue(for: "Server-Request-Count").flatMap { Int($0) }
        switch expected.type {
        case "cached":
            if !(servedNumber.map { $0 < number } ?? false) {
                report.typeFailures.append("request \(number): expected cached, origin answered")
            }
        case "not_cached":
            if servedNumber != number {
                report.typeFailures.append("request \(number): expected not_cached, served from cache or failed")
            }
        default:
            break
        }
        switch expected.status.mode {
        case "equals" where received.status != expected.status.value:
            report.otherFailures.append(
                "request \(number): status \(received.status), expected \(expected.status.value ?? 0)")
        case "default_200_or_999" where received.status != 200:
            report.otherFailures.append("request \(number): status \(received.status), expected 200")
        default:
            break
        }
        let serverNow = received.headers.firstValue(for: "Server-Now").flatMap(Double.init).map {
            Date(timeIntervalSince1970: $0 / 1000)
        }
        for check in expected.responseHeaders {
            let actual = received.headers[check.name]
            let wanted: String? =
                if let offset = check.dateOffsetS, let serverNow {
                    HTTPDate.string(from: serverNow.addingTimeInterval(offset))
                } else { check.value }
            switch check.op {
            case "equals" where actual != wanted:
                report.otherFailures.append(
                    "request \(number): \(check.name) is \(actual ?? "absent"), expected \(wanted ?? "?")")
            case "greater_than" where !((actual.flatMap(Double.init) ?? -.infinity) > (check.number ?? 0)):
                report.otherFailures.append(
                    "request \(number): \(check.name) is \(actual ?? "absent"), expected > \(check.number ?? 0)")
            case "present" where actual == nil:
                report.otherFailures.append("request \(number): \(check.name) missing")
            default:
                break
            }
        }
        for check in expected.responseHeadersMissing where check.upstreamEffective ?? true {
            if received.headers.contains(check.name) {
                report.otherFailures.append("request \(number): \(check.name) should be absent")
            }
        }
    }

    /// `origin_log_checks_after_test`: which requests reached the origin, and with which headers.
    static func checkOriginLog(_ test: CacheTestsCase, _ log: [LogEntry], into report: inout Report) {
        var index = 0
        for request in test.requests where request.expected.type != "cached" {
            let number = request.num
            let entry = index < log.count ? log[index] : nil
            index += 1
            switch request.expected.type {
            case "not_cached" where entry?.requestNumber != number:
                report.typeFailures.append("request \(number): origin did not see it")
            case "etag_validated" where entry?.headers.contains("If-None-Match") != true:
                report.typeFailures.append("request \(number): expected If-None-Match at the origin")
            case "lm_validated" where entry?.headers.contains("If-Modified-Since") != true:
                report.typeFailures.append("request \(number): expected If-Modified-Since at the origin")
            default:
                break
            }
            guard let entry else { continue }
            for check in request.expected.requestHeaders {
                let actual = entry.headers[check.name]
                if actual == nil || (check.value != nil && actual != check.value) {
                    report.otherFailures.append("request \(number): origin saw \(check.name): \(actual ?? "absent")")
                }
            }
            for check in request.expected.requestHeadersMissing {
                let actual = entry.headers[check.name]
                if actual != nil && (check.value == nil || actual == check.value) {
                    report.otherFailures.append("request \(number): origin should not see \(check.name)")
                }
            }
        }
    }
}
