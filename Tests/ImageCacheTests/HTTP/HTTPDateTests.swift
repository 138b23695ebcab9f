import Foundation
import Testing

@testable import HTTPCaching
@testable import ImageCache

@Suite("HTTPDate: the three HTTP-date forms")
struct HTTPDateTests {
    /// Sun, 06 Nov 1994 08:49:37 GMT, RFC 9110's example.
    static let example = Date(timeIntervalSince1970: 784_111_777)

    @Test(
        "all three forms of RFC 9110's example parse to the same instant",
        arguments: ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"])
    func parsesEveryForm(text: String) {
        #expect(HTTPDate.parse(text, now: HTTPFixture.start) == Self.example)
    }

    @Test("formatting writes IMF-fixdate and drops fractions")
    func formats() {
        #expect(HTTPDate.string(from: Self.example) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.string(from: Self.example.addingTimeInterval(0.999)) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.string(from: Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.string(from: Date(timeIntervalSince1970: -1)) == "Wed, 31 Dec 1969 23:59:59 GMT")
        #expect(HTTPDate.string(from: HTTPFixture.start) == "Thu, 01 Jan 2026 00:00:00 GMT")
    }

    @Test("formatting and parsing round-trip across leap days and centuries")
    func roundTrips() throws {
        for seconds: TimeInterval in [951_782_400, 4_107_542_399, 253_402_300_799, -2_208_988_800, 1_709_164_800] {
            let date = Date(timeIntervalSince1970: seconds)
            let text = HTTPDate.string(from: date)
            #expect(try #require(HTTPDate.parse(text)) == date, "\(text)")
        }
    }

    @Test("names match without regard to case; surrounding whitespace is ignored")
    func lenientCaseAndWhitespace() {
        #expect(HTTPDate.parse("THU, 18 AUG 2050 02:01:18 gmt") == HTTPDate.parse("Thu, 18 Aug 2050 02:01:18 GMT"))
        #expect(HTTPDate.parse("  Sun, 06 Nov 1994 08:49:37 GMT\t") == Self.example)
        #expect(HTTPDate.parse("sunday, 06-nov-94 08:49:37 GMT", now: HTTPFixture.start) == Self.example)
    }

    @Test(
        "invalid dates are nil",
        arguments: [
            "", "0", "-1", "tomorrow", "Thu, 18 Aug 50 02:01:18 GMT", "Thu 18 Aug 2050 02:01:18 GMT",
            "Thu, 18-Aug-2050 02:01:18 GMT", "Thu, 18 Aug 2050 02.01.18 GMT", "Thu, 18 Aug 2050 2:01:18 GMT",
            "Thu, 18 Aug 2050 02:01:18", "Thu, 18 Aug 2050 02:01:18 UTC", "Thu, 18 Aug 2050 02:01:18 GMT junk",
            "Thu, 32 Aug 2050 02:01:18 GMT", "Thu, 29 Feb 2100 02:01:18 GMT", "Thu, 18 Aug 2050 24:00:00 GMT",
            "Thu, 18 Aug 2050 23:60:00 GMT", "Thu, 18 Aux 2050 02:01:18 GMT", "Thursday, 18 Aug 2050 02:01:18 GMT",
            "Thu, 18-Aug-50 02:01:18 GMT", "Thu Aug 8 02:01:18 2050", "Xyz, 18 Aug 2050 02:01:18 GMT",
            "Thu,  18 Aug 2050 02:01:18 GMT", "Sun, 06 Nov 1994 08:49:37 GMT, Mon, 07 Nov 1994 08:49:37 GMT",
        ])
    func rejectsInvalid(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test("formatting clamps dates no HTTP-date can spell instead of trapping")
    func formatsExtremes() {
        #expect(HTTPDate.string(from: Date(timeIntervalSince1970: 1e300)) == "Fri, 31 Dec 9999 23:59:59 GMT")
        #expect(HTTPDate.string(from: Date(timeIntervalSince1970: -1e300)) == "Sat, 01 Jan 0000 00:00:00 GMT")
        #expect(HTTPDate.string(from: Date(timeIntervalSince1970: .nan)) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.parse("Thursday, 18-Aug-50 02:01:18 GMT", now: .distantFuture) != nil)
    }

    @Test("a leap second and 29 February in a leap year are valid")
    func edgeValues() throws {
        let leap = try #require(HTTPDate.parse("Sat, 31 Dec 2016 23:59:60 GMT"))
        #expect(HTTPDate.string(from: leap) == "Sun, 01 Jan 2017 00:00:00 GMT")
        #expect(HTTPDate.parse("Tue, 29 Feb 2000 12:00:00 GMT") != nil)
    }

    @Test("two-digit years resolve to within 50 years ahead of now, else the previous century")
    func twoDigitYears() {
        let now = HTTPFixture.start  // 2026
        #expect(
            HTTPDate.parse("Thursday, 18-Aug-50 02:01:18 GMT", now: now)
                == HTTPDate.parse("Thu, 18 Aug 2050 02:01:18 GMT"))
        #expect(
            HTTPDate.parse("Monday, 01-Jan-76 00:00:00 GMT", now: now)
                == HTTPDate.parse("Thu, 01 Jan 2076 00:00:00 GMT"))
        #expect(
            HTTPDate.parse("Monday, 01-Jan-77 00:00:00 GMT", now: now)
                == HTTPDate.parse("Sat, 01 Jan 1977 00:00:00 GMT"))
        #expect(
            HTTPDate.parse("Monday, 01-Jan-00 00:00:00 GMT", now: now)
                == HTTPDate.parse("Sat, 01 Jan 2000 00:00:00 GMT"))
    }

    @Test("asctime accepts a two-digit day as well as a space-padded one")
    func asctimeDays() {
        #expect(HTTPDate.parse("Thu Aug  8 02:01:18 2050") == HTTPDate.parse("Thu, 08 Aug 2050 02:01:18 GMT"))
        #expect(HTTPDate.parse("Thu Aug 18 02:01:18 2050") == HTTPDate.parse("Thu, 18 Aug 2050 02:01:18 GMT"))
    }
}
