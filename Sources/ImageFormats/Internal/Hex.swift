/// Hexadecimal spellings for messages about markers and stray bytes.
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
}
