/// Words what some unrecognised data looks like, for the `notAnImage` message.
enum NonImageDescriber {
    /// A short phrase such as "a JSON document" or "binary data matching no image format".
    static func describe(_ bytes: [UInt8]) -> String {
        if bytes.starts(with: Array("%PDF".utf8)) { return "a PDF document" }
        if bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) { return "a ZIP archive" }
        if GzipMember.hasMagic(bytes) { return "gzip-compressed data" }
        var text = bytes.prefix(512)
        if text.starts(with: [0xEF, 0xBB, 0xBF]) { text = text.dropFirst(3) }
        let firstVisible = text.first { !XMLProlog.isXMLSpace($0) }
        if firstVisible == UInt8(ascii: "{") || firstVisible == UInt8(ascii: "[") { return "a JSON document" }
        // Text is printable ASCII or valid UTF-8 (allowing a sequence cut at the end of the sample).
        let isASCIIText = text.allSatisfy { (0x20...0x7E).contains($0) || XMLProlog.isXMLSpace($0) || $0 >= 0x80 }
        let isValidUTF8 = (0...3).contains { cut in
            !String(decoding: text.dropLast(cut), as: UTF8.self).unicodeScalars.contains("\u{FFFD}")
        }
        if isASCIIText, isValidUTF8 {
            return "plain text"
        }
        return "binary data matching no image format"
    }
}
