import CacheConformance
import Foundation

@testable import HTTPCaching
@testable import ImageCache

/// The origin server of the cache tests, simulated: `conventions.origin` in cases.json.
enum CacheTestsOrigin {
    /// The origin's answer, following `conventions.origin`: the test's headers in order after the
    /// harness's own, `Content-Type`, then what Node adds (`Date`, `Connection`, `Keep-Alive`); a 304
    /// for a `*_validated` request only when a validator matches exactly, else 999.
    static func response(
        to request: CacheTestsCase.Request, requestHeaders: HeaderFields, now: Date, count: Int,
        previous: HeaderFields?, resolved: inout [Int: HeaderFields]
    ) -> HTTPResponseHead {
        var configured = HeaderFields()
        for spec in request.origin.responseHeaders { configured.append(spec.name, resolve(spec, serverNow: now)) }
        resolved[request.num] = configured
        var status = request.origin.responseStatus.code
        if let type = request.expected.type, type.hasSuffix("validated") {
            let lastModified = previous?.values(for: "Last-Modified").last
            let entityTag = previous?.values(for: "ETag").last
            let matches =
                (lastModified != nil && requestHeaders.firstValue(for: "If-Modified-Since") == lastModified)
                || (entityTag != nil && requestHeaders.firstValue(for: "If-None-Match") == entityTag)
            status = matches ? 304 : 999
        }
        var headers: HeaderFields = [
            "Server-Request-Count": "\(count)", "Server-Now": "\(Int64(now.timeIntervalSince1970 * 1000))",
        ]
        for field in configured { headers.append(field) }
        if !configured.contains("Content-Type") { headers.append("Content-Type", "text/plain") }
        if !configured.contains("Date") { headers.append("Date", HTTPDate.string(from: now)) }
        headers.append("Connection", "keep-alive")
        if !configured.contains("Keep-Alive") { headers.append("Keep-Alive", "timeout=5") }
        return HTTPResponseHead(status: status, headers: headers)
    }

    /// The response headers of a request the origin never served: literal values only, since a date
    /// offset is resolved only when the origin answers (`conventions.origin.status`).
    static func literalHeaders(_ request: CacheTestsCase.Request) -> HeaderFields {
        HeaderFields(request.origin.responseHeaders.compactMap { spec in spec.value.map { .init(spec.name, $0) } })
    }

    /// A header value from its spec: literal, or an IMF-fixdate `dateOffsetS` seconds from `serverNow`.
    static func resolve(_ spec: CacheTestsCase.HeaderSpec, serverNow: Date) -> String {
        if let offset = spec.dateOffsetS { return HTTPDate.string(from: serverNow.addingTimeInterval(offset)) }
        return spec.value ?? ""
    }
}
