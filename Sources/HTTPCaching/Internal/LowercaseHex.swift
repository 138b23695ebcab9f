/// Digests spelled for headers and file names: two lowercase digits per byte, no prefix.
enum LowercaseHex {
    /// `"0aff"` for `[0x0A, 0xFF]`.
    static func string(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes { text += [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]] }
        return String(decoding: text, as: UTF8.self)
    }
}
