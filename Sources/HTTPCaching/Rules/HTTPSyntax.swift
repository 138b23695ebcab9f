import Foundation

/// The few pieces of HTTP grammar (RFC 9110 §5.6) every parser in this folder shares.
///
/// Parsing works on UTF-8 bytes: every delimiter in HTTP field syntax is ASCII, and bytes let
/// obs-text (non-ASCII octets) pass through untouched instead of tripping `Character` logic.
enum HTTPSyntax {
    /// RFC 9111 §1.2.2: a delta-seconds value too large to represent is taken as 2^31.
    static let deltaSecondsLimit: Int64 = 2_147_483_648

    /// Whether `byte` is a `tchar` (RFC 9110 §5.6.2), the characters of a token.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// Whether `byte` is optional whitespace (SP or HTAB, RFC 9110 §5.6.3).
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    /// Whether `text` is a non-empty token.
    static func isToken(_ text: some StringProtocol) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(isTokenByte)
    }

    /// `text` without leading and trailing optional whitespace.
    static func trimmed(_ text: String) -> String {
        // Nearly every value is trimmed already (every field built or decoded goes through here):
        // then the string is returned as it is, without copying its bytes twice.
        guard let first = text.utf8.first, let last = text.utf8.last, isWhitespace(first) || isWhitespace(last) else {
            return text
        }
        return trimmed(text[...])
    }

    /// `text` without leading and trailing optional whitespace.
    static func trimmed(_ text: some StringProtocol) -> String {
        let bytes = Array(text.utf8)
        return string(trimming(bytes[...]))
    }

    /// Compares two field names the way HTTP does: ASCII letters without regard to case.
    static func namesEqual(_ lhs: String, _ rhs: String) -> Bool {
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        // Header lookups compare names constantly; over the contiguous bytes `withUTF8` lends (a
        // native string's own, without copying) this is a plain loop, where zipping the two UTF-8
        // views cost a call per byte.
        var left = lhs
        var right = rhs
        return left.withUTF8 { leftBytes in
            right.withUTF8 { rightBytes in
                !zip(leftBytes, rightBytes).contains { asciiLowercase($0) != asciiLowercase($1) }
            }
        }
    }

    /// ASCII-only lowercasing: field names and directive names are ASCII, and locale rules must not apply.
    static func lowercased(_ text: some StringProtocol) -> String {
        // Names are nearly always lowercase already (directives) or looked up by constants: no copy then.
        guard text.utf8.contains(where: { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }) else {
            return String(text)
        }
        return String(decoding: text.utf8.map(asciiLowercase), as: UTF8.self)
    }

    /// Splits a field value into the members of a comma-separated list (RFC 9110 §5.6.1).
    ///
    /// Commas inside quoted strings do not split, members are trimmed, and empty members are
    /// dropped, as the list syntax requires recipients to do.
    static func listMembers(_ value: some StringProtocol) -> [String] {
        var members: [String] = []
        forEachListMember(of: Array(value.utf8)[...]) { members.append(string($0)) }
        return members
    }

    /// Calls `body` with each member of the comma-separated list in `bytes`, trimmed and never
    /// empty, as ``listMembers(_:)`` splits them; for parsers that read members as bytes anyway.
    static func forEachListMember(of bytes: ArraySlice<UInt8>, _ body: (ArraySlice<UInt8>) -> Void) {
        var start = bytes.startIndex
        var index = bytes.startIndex
        var inQuotes = false
        while index < bytes.endIndex {
            let byte = bytes[index]
            if inQuotes {
                if byte == UInt8(ascii: "\\") {
                    index += 1  // the escaped byte cannot end the string
                } else if byte == UInt8(ascii: "\"") {
                    inQuotes = false
                }
            } else if byte == UInt8(ascii: "\"") {
                inQuotes = true
            } else if byte == UInt8(ascii: ",") {
                let member = trimming(bytes[start..<index])
                if !member.isEmpty { body(member) }
                start = index + 1
            }
            index += 1
        }
        let member = trimming(bytes[min(start, bytes.endIndex)...])
        if !member.isEmpty { body(member) }
    }

    /// Reads a quoted-string at the start of `bytes` (RFC 9110 §5.6.4).
    ///
    /// Returns its unescaped content and the bytes after the closing quote, or nil when
    /// `bytes` does not start with a complete quoted string.
    static func quotedString(at bytes: ArraySlice<UInt8>) -> (content: String, rest: ArraySlice<UInt8>)? {
        guard bytes.first == UInt8(ascii: "\"") else { return nil }
        var content: [UInt8] = []
        var index = bytes.startIndex + 1
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\\") {
                index += 1
                guard index < bytes.endIndex else { return nil }
                content.append(bytes[index])
            } else if byte == UInt8(ascii: "\"") {
                return (string(content[...]), bytes[(index + 1)...])
            } else {
                content.append(byte)
            }
            index += 1
        }
        return nil
    }

    /// Parses delta-seconds (RFC 9111 §1.2.2): one or more digits and nothing else.
    ///
    /// Values beyond 2^31 clamp to 2^31 instead of overflowing, as §1.2.2 requires.
    /// Signs, fractions, spaces and trailing letters make the value invalid (nil).
    static func deltaSeconds(_ text: some StringProtocol) -> Int64? {
        let bytes = text.utf8
        guard !bytes.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            // Saturate once past the limit: the remaining digits can only make it larger.
            if value < deltaSecondsLimit {
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
        }
        return min(value, deltaSecondsLimit)
    }

    static func trimming(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, isWhitespace(first) { slice = slice.dropFirst() }
        while let last = slice.last, isWhitespace(last) { slice = slice.dropLast() }
        return slice
    }

    static func string(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    private static func asciiLowercase(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }
}
