import Foundation

/// Reads the three HTTP-date forms of RFC 9110 §5.6.7 from bytes, exactly as the grammar spells them.
///
/// Each form method consumes from the start; on failure the caller rewinds and tries the next form.
struct DateScanner {
    private let bytes: ArraySlice<UInt8>
    private var index: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.index = bytes.startIndex
    }

    mutating func rewind() {
        index = bytes.startIndex
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT`
    mutating func imfFixdate() -> Date? {
        guard name(in: Self.shortDayNames) != nil, literal(", "),
            let day = digits(2), literal(" "), let month = month(), literal(" "),
            let year = digits(4), literal(" "), let time = time(), literal(" GMT"), atEnd
        else { return nil }
        return Self.makeDate(year: Int64(year), month: month, day: day, time: time)
    }

    /// `Sunday, 06-Nov-94 08:49:37 GMT`
    mutating func rfc850(now: Date) -> Date? {
        guard name(in: Self.longDayNames) != nil, literal(", "),
            let day = digits(2), literal("-"), let month = month(), literal("-"),
            let shortYear = digits(2), literal(" "), let time = time(), literal(" GMT"), atEnd
        else { return nil }
        // RFC 9110 §5.6.7: a year more than 50 years ahead means the most recent past year with those digits.
        let currentYear = CivilCalendar.year(of: now)
        var year = currentYear - currentYear % 100 + Int64(shortYear)
        if year > currentYear + 50 { year -= 100 }
        return Self.makeDate(year: year, month: month, day: day, time: time)
    }

    /// `Sun Nov  6 08:49:37 1994`
    mutating func asctime() -> Date? {
        guard name(in: Self.shortDayNames) != nil, literal(" "), let month = month(), literal(" ")
        else { return nil }
        // The day is two digits, or a space then one digit.
        let day: Int?
        if literal(" ") { day = digits(1) } else { day = digits(2) }
        guard let day, literal(" "), let time = time(), literal(" "), let year = digits(4), atEnd
        else { return nil }
        return Self.makeDate(year: Int64(year), month: month, day: day, time: time)
    }

    private static let shortDayNames: [StaticString] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let longDayNames: [StaticString] = [
        "Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday",
    ]
    private static let monthNames: [StaticString] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]

    private var atEnd: Bool { index == bytes.endIndex }

    private mutating func literal(_ text: StaticString) -> Bool {
        // StaticString: its bytes are read in place, where a String's UTF-8 view costs a call per byte
        // (this was most of the time spent judging a stored response's freshness).
        text.withUTF8Buffer { expected in
            guard bytes.endIndex - index >= expected.count else { return false }
            for (offset, byte) in expected.enumerated()
            where Self.lower(bytes[index + offset]) != Self.lower(byte) {
                return false
            }
            index += expected.count
            return true
        }
    }

    private mutating func digits(_ count: Int) -> Int? {
        var value = 0
        for _ in 0..<count {
            guard index < bytes.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else {
                return nil
            }
            value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
            index += 1
        }
        return value
    }

    /// Matches one of `names` without regard to case; returns its index.
    private mutating func name(in names: [StaticString]) -> Int? {
        let start = index
        for (position, candidate) in names.enumerated() {
            index = start
            if literal(candidate) {
                // A longer alphabetic run ("Thursday" where "Thu" was wanted) is not a match.
                if index < bytes.endIndex, Self.isLetter(bytes[index]) { continue }
                return position
            }
        }
        index = start
        return nil
    }

    private mutating func month() -> Int? {
        name(in: Self.monthNames).map { $0 + 1 }
    }

    /// `hh:mm:ss` with exactly two digits each.
    private mutating func time() -> (hour: Int, minute: Int, second: Int)? {
        guard let hour = digits(2), literal(":"), let minute = digits(2), literal(":"), let second = digits(2)
        else { return nil }
        return (hour, minute, second)
    }

    private static func makeDate(year: Int64, month: Int, day: Int, time: (hour: Int, minute: Int, second: Int))
        -> Date?
    {
        // Seconds may be 60 for a leap second (RFC 9110 §5.6.7); it counts into the next minute.
        guard (1...CivilCalendar.daysInMonth(month, year: year)).contains(day),
            (0...23).contains(time.hour), (0...59).contains(time.minute), (0...60).contains(time.second)
        else { return nil }
        let days = CivilCalendar.daysSince1970(year: year, month: month, day: day)
        let seconds = days * 86_400 + Int64(time.hour * 3600 + time.minute * 60 + time.second)
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private static func lower(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(lower(byte))
    }
}
