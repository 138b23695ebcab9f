import Foundation

/// Parses and formats HTTP-dates (RFC 9110 §5.6.7).
///
/// Parsing accepts the preferred IMF-fixdate and the two obsolete forms every recipient must
/// still read; anything else is invalid. Callers treat an invalid `Expires` as a time in the
/// past (RFC 9111 §5.3), so strictness here errs towards revalidating, never towards serving
/// stale content.
///
/// ```swift
/// HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT")   // IMF-fixdate
/// HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT")  // obsolete RFC 850 form
/// HTTPDate.parse("Sun Nov  6 08:49:37 1994")        // obsolete asctime() form
/// HTTPDate.string(from: Date())                     // always IMF-fixdate
/// ```
///
/// Day and month names are matched without regard to case, which real servers need even though
/// the grammar is case-sensitive; the weekday must be a real day name but is not checked against
/// the date. Parsing is hand-written rather than `DateFormatter`-based: it is locale-proof,
/// allocation-light, and safe from any thread.
package enum HTTPDate {
    /// The instant `text` names, or nil if it is not a valid HTTP-date.
    ///
    /// - Parameter now: the reference for two-digit years in the RFC 850 form: a year that would lie
    ///   more than 50 years after `now` is read as the most recent past year with those digits
    ///   (RFC 9110 §5.6.7).
    package static func parse(_ text: some StringProtocol, now: Date = Date()) -> Date? {
        var scanner = DateScanner(HTTPSyntax.trimming(Array(text.utf8)[...]))
        if let date = scanner.imfFixdate() { return date }
        scanner.rewind()
        if let date = scanner.rfc850(now: now) { return date }
        scanner.rewind()
        return scanner.asctime()
    }

    /// `date` as an IMF-fixdate, for example `Sun, 06 Nov 1994 08:49:37 GMT`.
    ///
    /// Fractions of a second are dropped; dates outside the years 0000...9999 are clamped to that range.
    package static func string(from date: Date) -> String {
        let totalSeconds = CivilCalendar.wholeSeconds(since1970: date)
        let days = CivilCalendar.floorDivide(totalSeconds, 86_400)
        let secondOfDay = totalSeconds - days * 86_400
        let (year, month, day) = CivilCalendar.date(fromDaysSince1970: days)
        // 1 January 1970 was a Thursday, index 4 in a week that starts on Sunday.
        let weekday = Int(days + 4 - CivilCalendar.floorDivide(days + 4, 7) * 7)
        return "\(CivilCalendar.shortDayNames[weekday]), \(twoDigits(day)) \(CivilCalendar.monthNames[month - 1]) "
            + "\(fourDigits(year)) \(twoDigits(Int(secondOfDay / 3600))):\(twoDigits(Int(secondOfDay % 3600 / 60))):"
            + "\(twoDigits(Int(secondOfDay % 60))) GMT"
    }

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }

    private static func fourDigits(_ value: Int64) -> String {
        let text = "\(value)"
        return String(repeating: "0", count: max(0, 4 - text.count)) + text
    }
}
