/// A start tag (`<name attr="value" ...>` or `.../>`) scanned from XML bytes.
struct XMLStartTag {
    /// The element name as written.
    var name: ArraySlice<UInt8>
    /// The attributes in order, when the scan was asked to collect them.
    var attributes: [(name: String, value: String)]
    /// The index just past the closing `>`.
    var end: Int
    /// Whether the tag closes itself (`/>`), so the element has no content.
    var isSelfClosing: Bool

    /// Scans the start tag whose `<` is at `start`.
    ///
    /// Throws ``ParseFailure/needMoreBytes`` when the bytes end inside the tag, and a malformed
    /// failure for anything XML does not allow there.
    static func scan(_ bytes: [UInt8], at start: Int, collectAttributes: Bool) throws(ParseFailure) -> XMLStartTag {
        let end = bytes.count
        var index = start + 1
        let nameStart = index
        while index < end, XMLProlog.isNameByte(bytes[index]) { index += 1 }
        guard index < end else { throw .needMoreBytes }
        guard index > nameStart else { throw .malformed("a '<' at offset \(start) starts no element") }
        let name = bytes[nameStart..<index]
        var attributes: [(name: String, value: String)] = []
        while true {
            let hadSpace = index < end && XMLProlog.isXMLSpace(bytes[index])
            while index < end, XMLProlog.isXMLSpace(bytes[index]) { index += 1 }
            guard index < end else { throw .needMoreBytes }
            switch bytes[index] {
            case UInt8(ascii: ">"):
                return XMLStartTag(name: name, attributes: attributes, end: index + 1, isSelfClosing: false)
            case UInt8(ascii: "/"):
                guard index + 1 < end else { throw .needMoreBytes }
                guard bytes[index + 1] == UInt8(ascii: ">") else { throw .malformed("a stray '/' inside the tag <\(text(name))>") }
                return XMLStartTag(name: name, attributes: attributes, end: index + 2, isSelfClosing: true)
            default:
                guard hadSpace else { throw .malformed("attributes of <\(text(name))> are not separated by white space") }
                let attribute = try scanAttribute(bytes, at: index, element: name)
                if collectAttributes {
                    attributes.append((text(bytes[attribute.name]), text(bytes[attribute.value])))
                }
                index = attribute.end
            }
        }
    }

    /// Scans `name = "value"` (or single quotes) and returns where the name and value lie.
    private static func scanAttribute(_ bytes: [UInt8], at start: Int, element: ArraySlice<UInt8>) throws(ParseFailure) -> (name: Range<Int>, value: Range<Int>, end: Int) {
        let end = bytes.count
        var index = start
        while index < end, XMLProlog.isNameByte(bytes[index]) { index += 1 }
        guard index < end else { throw .needMoreBytes }
        guard index > start else { throw .malformed("an unexpected character inside the tag <\(text(element))>") }
        let name = start..<index
        while index < end, XMLProlog.isXMLSpace(bytes[index]) { index += 1 }
        guard index < end else { throw .needMoreBytes }
        guard bytes[index] == UInt8(ascii: "=") else { throw .malformed("attribute \(text(bytes[name])) of <\(text(element))> has no value") }
        index += 1
        while index < end, XMLProlog.isXMLSpace(bytes[index]) { index += 1 }
        guard index < end else { throw .needMoreBytes }
        let quote = bytes[index]
        guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
            throw .malformed("attribute \(text(bytes[name])) of <\(text(element))> is not quoted")
        }
        let valueStart = index + 1
        guard let valueEnd = bytes[valueStart...].firstIndex(of: quote) else { throw .needMoreBytes }
        guard !bytes[valueStart..<valueEnd].contains(UInt8(ascii: "<")) else {
            throw .malformed("attribute \(text(bytes[name])) of <\(text(element))> contains '<'")
        }
        return (name, valueStart..<valueEnd, valueEnd + 1)
    }

    /// Bytes as text for values and messages (invalid UTF-8 is replaced, never trusted).
    static func text(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}
