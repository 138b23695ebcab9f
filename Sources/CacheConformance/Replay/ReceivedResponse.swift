import Foundation
import HTTPCaching

/// A response as the client received it, read the way fetch() reads it.
struct ReceivedResponse: Sendable {
    let status: Int
    let headers: HeaderFields
    let body: String

    /// `Headers.get(name)`: every line of that name joined with ", ", or nil.
    func header(_ name: String) -> String? {
        let values = headers.values(for: name)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    /// `parseInt(header)`: the leading integer of the header's value, or nil (NaN).
    func integerPrefix(of name: String) -> Int? {
        guard let value = header(name)?.trimmingCharacters(in: .whitespaces) else { return nil }
        let sign = value.hasPrefix("-") ? "-" : ""
        let digits = value.dropFirst(sign.count).prefix { $0.isASCII && $0.isNumber }
        return Int(sign + digits)
    }

    /// `Server-Now` as a date: what relative dates in the checks are resolved against.
    var serverNow: Date? {
        integerPrefix(of: "Server-Now").map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }
}
