import Foundation

@testable import HTTPCaching
@testable import ImageCache

/// Builders shared by the HTTP caching tests: a fixed clock and stored responses made the way the loader makes them.
enum HTTPFixture {
    /// 2026-01-01 00:00:00 UTC, a whole second so that `Date` headers are exact.
    static let start = Date(timeIntervalSince1970: 1_767_225_600)

    /// `start` moved by `seconds`.
    static func time(_ seconds: TimeInterval) -> Date {
        start.addingTimeInterval(seconds)
    }

    /// The IMF-fixdate of `start` moved by `seconds`.
    static func httpDate(_ seconds: TimeInterval) -> String {
        HTTPDate.string(from: time(seconds))
    }

    /// A response received at `start` (requested `delay` seconds earlier) and stored as the loader would.
    static func stored(
        status: Int = 200, _ headers: HeaderFields, request: HTTPRequestHead = HTTPRequestHead(),
        delay: TimeInterval = 0
    ) -> StoredResponse {
        StoredResponse(
            response: HTTPResponseHead(status: status, headers: headers), request: request,
            requestTime: time(-delay), responseTime: start)
    }

    /// Headers from (name, value) pairs, repeats allowed.
    static func headers(_ pairs: [(String, String)]) -> HeaderFields {
        HeaderFields(pairs.map { HeaderFields.Field($0.0, $0.1) })
    }

    /// A GET request with the given header pairs.
    static func request(_ pairs: [(String, String)] = [], method: String = "GET") -> HTTPRequestHead {
        HTTPRequestHead(method: method, headers: headers(pairs))
    }
}
