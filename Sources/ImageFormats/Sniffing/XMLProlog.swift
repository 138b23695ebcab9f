/// Finds the root element of XML-like text by skipping what may precede it: a byte-order mark,
/// whitespace, the XML declaration, processing instructions, comments and a DOCTYPE.
///
/// Used by sniffing (is the root `<svg>`?) and by the SVG header read (where do the root's
/// attributes start?). A DOCTYPE internal subset that declares entities is reported, because
/// that is how "billion laughs" documents expand.
enum XMLProlog {
    /// What precedes the root element, and the root itself.
    struct Root: Equatable {
        /// The root element's name as written (`svg`, `html`, `Error`).
        var name: String
        /// The index of the `<` that opens the root element.
        var tagStart: Int
        /// Whether a DOCTYPE before the root declares entities (`<!ENTITY`).
        var declaresEntities: Bool
        /// Whether the DOCTYPE names HTML (`<!DOCTYPE html>`).
        var isHTMLDoctype: Bool
    }

    /// The result of looking for the root element.
    enum Outcome: Equatable {
        /// The root element was found.
        case root(Root)
        /// The bytes end inside the prolog.
        case needMoreBytes
        /// The first non-blank content is not markup (or the prolog is broken).
        case notMarkup
    }

    /// Looks for the root element in `bytes`, scanning at most `limit` bytes.
    static func findRoot(_ bytes: [UInt8], limit: Int = 1 << 20) -> Outcome {
        let end = min(bytes.count, limit)
        var index = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        var declaresEntities = false
        var isHTMLDoctype = false
        while true {
            while index < end, isXMLSpace(bytes[index]) { index += 1 }
            guard index < end else { return .needMoreBytes }
            guard bytes[index] == UInt8(ascii: "<") else { return .notMarkup }
            guard index + 1 < end else { return .needMoreBytes }
            switch bytes[index + 1] {
            case UInt8(ascii: "?"):
                guard let close = find([UInt8(ascii: "?"), UInt8(ascii: ">")], in: bytes, from: index + 2, end: end) else { return .needMoreBytes }
                index = close + 2
            case UInt8(ascii: "!"):
                if hasPrefix(Array("<!--".utf8), bytes, at: index, end: end) {
                    guard let close = find(Array("-->".utf8), in: bytes, from: index + 4, end: end) else { return .needMoreBytes }
                    index = close + 3
                } else if hasPrefix(Array("<!doctype".utf8), bytes, at: index, end: end, caseInsensitive: true) {
                    guard let doctype = skipDoctype(bytes, from: index + 9, end: end) else { return .needMoreBytes }
                    declaresEntities = declaresEntities || doctype.declaresEntities
                    isHTMLDoctype = isHTMLDoctype || doctype.isHTML
                    index = doctype.end
                } else if end - index < 9 {
                    return .needMoreBytes
                } else {
                    return .notMarkup
                }
            default:
                var nameEnd = index + 1
                while nameEnd < end, isNameByte(bytes[nameEnd]) { nameEnd += 1 }
                guard nameEnd < end else { return .needMoreBytes }
                guard nameEnd > index + 1 else { return .notMarkup }
                let name = String(decoding: bytes[(index + 1)..<nameEnd], as: UTF8.self)
                return .root(Root(name: name, tagStart: index, declaresEntities: declaresEntities, isHTMLDoctype: isHTMLDoctype))
            }
        }
    }

    /// Skips a DOCTYPE body up to its closing `>`, honouring quotes and the `[...]` internal subset.
    private static func skipDoctype(_ bytes: [UInt8], from start: Int, end: Int) -> (end: Int, declaresEntities: Bool, isHTML: Bool)? {
        var index = start
        while index < end, isXMLSpace(bytes[index]) { index += 1 }
        let isHTML = hasPrefix(Array("html".utf8), bytes, at: index, end: end, caseInsensitive: true)
        var quote: UInt8?
        var subsetDepth = 0
        var declaresEntities = false
        while index < end {
            let byte = bytes[index]
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: "[") {
                subsetDepth += 1
            } else if byte == UInt8(ascii: "]") {
                subsetDepth = max(0, subsetDepth - 1)
            } else if byte == UInt8(ascii: "<"), hasPrefix(Array("<!ENTITY".utf8), bytes, at: index, end: end) {
                declaresEntities = true
            } else if byte == UInt8(ascii: ">"), subsetDepth == 0 {
                return (index + 1, declaresEntities, isHTML)
            }
            index += 1
        }
        return nil
    }

    /// Whether `byte` is XML white space.
    static func isXMLSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// Whether `byte` can be part of an element or attribute name (any non-ASCII byte counts, as UTF-8).
    static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: ":"), 0x80...0xFF:
            true
        default:
            false
        }
    }

    /// Whether `bytes` hold `prefix` at `index`.
    static func hasPrefix(_ prefix: [UInt8], _ bytes: [UInt8], at index: Int, end: Int, caseInsensitive: Bool = false) -> Bool {
        guard end - index >= prefix.count else { return false }
        for (offset, expected) in prefix.enumerated() {
            let byte = bytes[index + offset]
            let matches = caseInsensitive ? asciiLowercase(byte) == asciiLowercase(expected) : byte == expected
            if !matches { return false }
        }
        return true
    }

    /// The index where `needle` next occurs in `bytes[from..<end]`.
    static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int, end: Int) -> Int? {
        guard let first = needle.first, end - start >= needle.count else { return nil }
        var index = start
        while index <= end - needle.count {
            if bytes[index] == first, hasPrefix(needle, bytes, at: index, end: end) { return index }
            index += 1
        }
        return nil
    }

    private static func asciiLowercase(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }
}
