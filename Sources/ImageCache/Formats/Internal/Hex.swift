/// Hexadecimal spellings for messages about markers and stray bytes, and for digests.
enum Hex {
    /// `0xAB` for one byte.
    static func byte(_ value: UInt8) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "0x" + (digits.count < 2 ? "0" + digits : digits)
    }

    /// `0xFFD9` for a JPEG marker code.
    static func marker(_ code: UInt8) -> String {
        "0xFF" + byte(code).dropFirst(2)
    }

    /// Two lowercase digits per byte, no prefix: `"0aff"` for a digest.
    static func lowercaseDigits(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes { text += [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]] }
        return String(decoding: text, as: UTF8.self)
    }
}
