/// The host of a URL key, as ``EntryQuery/host`` matches it.
///
/// SQL `LIKE` patterns cannot tell a key's host from the same text later in its path or query,
/// so the index only narrows the candidates and this decides, on the key's own authority.
enum KeyHost {
    /// The host of `key`: the authority between `scheme://` and the next `/`, `?` or `#`, after the
    /// last `@` (userinfo) and before a `:port` (an `[IPv6]` literal is kept whole); nil when
    /// `key` does not start with a scheme and `://`.
    static func host(of key: String) -> String? {
        let utf8 = key.utf8
        guard let colon = utf8.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let scheme = utf8[..<colon]
        guard let first = scheme.first, isLetter(first), scheme.allSatisfy(isSchemeByte),
            utf8[colon...].starts(with: "://".utf8)
        else { return nil }
        let authorityStart = utf8.index(colon, offsetBy: 3)
        let authorityEnd = utf8[authorityStart...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? utf8.endIndex
        var hostStart = authorityStart
        if let at = utf8[authorityStart..<authorityEnd].lastIndex(of: UInt8(ascii: "@")) { hostStart = utf8.index(after: at) }
        let hostAndPort = utf8[hostStart..<authorityEnd]
        var hostEnd = authorityEnd
        if hostAndPort.first == UInt8(ascii: "[") {
            if let close = hostAndPort.firstIndex(of: UInt8(ascii: "]")) { hostEnd = utf8.index(after: close) }
        } else if let portColon = hostAndPort.firstIndex(of: UInt8(ascii: ":")) {
            hostEnd = portColon
        }
        // Decoded from the bytes: a delimiter followed by a combining mark is not a Character boundary.
        return String(decoding: utf8[hostStart..<hostEnd], as: UTF8.self)
    }

    /// Whether `key`'s host is `host`, ignoring ASCII case (as DNS does; SQLite's `lower` folds only ASCII too).
    static func matches(_ key: String, host: String) -> Bool {
        guard let keyHost = Self.host(of: key) else { return false }
        return asciiLowercased(keyHost) == asciiLowercased(host)
    }

    /// `text` with ASCII letters lowercased and everything else as it is.
    static func asciiLowercased<Text: StringProtocol>(_ text: Text) -> String {
        String(decoding: text.utf8.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }

    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        isLetter(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "+")
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }
}
