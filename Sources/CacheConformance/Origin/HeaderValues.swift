import Foundation
import HTTPCaching

/// How the suite's origin turns a header spec into a value (`conventions.origin.header_values`).
enum HeaderValues {
    /// `spec`'s value for a response generated at `serverNow` for the request path `baseURL`:
    /// literal, an HTTP-date `dateOffsetS` seconds from `serverNow` (fraction dropped), or a location
    /// below `baseURL`.
    static func resolve(_ spec: CacheTestsCase.HeaderSpec, serverNow: Date, baseURL: String) -> String {
        if let offset = spec.dateOffsetS {
            return date(serverNow.addingTimeInterval(offset), format: spec.dateFormat)
        }
        if let path = spec.locationPath {
            return path.isEmpty ? baseURL : "\(baseURL)/\(path)"
        }
        return spec.value ?? ""
    }

    /// `date` as an IMF-fixdate, or in the obsolete RFC 850 form when `format` is `rfc850`.
    static func date(_ date: Date, format: String?) -> String {
        guard format == "rfc850" else { return HTTPDate.string(from: date) }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "GMT")!
        let parts = calendar.dateComponents([.weekday, .day, .month, .year, .hour, .minute, .second], from: date)
        let weekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int?) -> String { String(format: "%02d", value ?? 0) }
        return "\(weekdays[(parts.weekday ?? 1) - 1]), \(two(parts.day))-\(months[(parts.month ?? 1) - 1])-"
            + "\(two((parts.year ?? 0) % 100)) \(two(parts.hour)):\(two(parts.minute)):\(two(parts.second)) GMT"
    }

    /// Milliseconds since 1970, as `Server-Now` carries them.
    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }
}
