import Foundation

/// Lengths of time as people write them on the command line (`7d`, `12h`, `30m`, `1h30m`) and read
/// them in reports (`3 h`, `21 h`, `2 d`).
enum TimeSpan {
    private static let unitSeconds: [String: Double] = [
        "s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "d": 86_400, "w": 604_800,
    ]

    /// The longest duration a command accepts: 100 years (36500d). Longer ones mean nothing for a
    /// cache, and dates that far off overflow the store's millisecond times.
    static let longest: TimeInterval = 36_500 * 86_400

    /// The seconds `text` names: one or more number-unit pairs, units `s`, `m`, `h`, `d`, `w`.
    /// - Throws: ``ArgumentFormatError`` with an example of the expected form, or saying the most
    ///   accepted when the total is longer than ``longest``.
    static func parse(_ text: String) throws -> TimeInterval {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces).lowercased())
        var total: TimeInterval = 0
        let invalid = ArgumentFormatError("'\(text)' is not a duration; write it like 30m, 12h, 7d or 1h30m")
        guard !rest.isEmpty else { throw invalid }
        while !rest.isEmpty {
            let digits = rest.prefix { $0.isNumber || $0 == "." }
            rest = rest.dropFirst(digits.count)
            let unit = rest.prefix { $0.isLetter }
            rest = rest.dropFirst(unit.count)
            guard let number = Double(digits), let scale = unitSeconds[String(unit)] else { throw invalid }
            total += number * scale
        }
        guard total <= longest else {
            throw ArgumentFormatError("'\(text)' is too long; the most is 36500d (100 years)")
        }
        return total
    }

    /// `seconds` in one rounded-down unit: `40 s`, `5 min`, `3 h`, `2 d`.
    static func format(_ seconds: TimeInterval) -> String {
        let value = abs(seconds)
        guard value.isFinite else { return "forever" }
        switch value {
        case ..<90: return "\(Int(value)) s"
        case ..<(90 * 60): return "\(Int(value / 60)) min"
        case ..<(48 * 3600): return "\(Int(value / 3600)) h"
        case ..<(730 * 86_400): return "\(Int(value / 86_400)) d"
        default: return "\(Int(value / (365 * 86_400))) y"
        }
    }

    /// `date` relative to `now`: `3 h ago`, `in 2 d`, `just now`.
    static func relative(_ date: Date, to now: Date = Date()) -> String {
        let seconds = date.timeIntervalSince(now)
        if abs(seconds) < 1 { return "just now" }
        return seconds < 0 ? "\(format(seconds)) ago" : "in \(format(seconds))"
    }
}
