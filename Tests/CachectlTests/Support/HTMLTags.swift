import Foundation

/// The tags of an HTML document, split the way a browser's tokenizer splits them: per Unicode
/// scalar, an attribute value ending at its quote whatever follows, `<script>` and `<style>`
/// holding raw text. Enough to see where an escaped value would break out; not a full parser.
struct HTMLTag {
    var name: String
    var attributes: [(name: String, value: String)]
    /// The raw text of a `<script>` or `<style>` element.
    var rawText: String?

    func attribute(_ name: String) -> String? { attributes.first { $0.name == name }?.value }

    static func parse(_ html: String) -> [HTMLTag] {
        let scalars = Array(html.unicodeScalars)
        var tags: [HTMLTag] = []
        var index = 0
        func isSpace(_ scalar: Unicode.Scalar) -> Bool { " \t\n\r\u{0C}".unicodeScalars.contains(scalar) }
        func read(while condition: (Unicode.Scalar) -> Bool) -> String {
            var text = String.UnicodeScalarView()
            while index < scalars.count, condition(scalars[index]) {
                text.append(scalars[index])
                index += 1
            }
            return String(text)
        }
        while index < scalars.count {
            guard scalars[index] == "<", index + 1 < scalars.count, scalars[index + 1].properties.isAlphabetic else {
                if scalars[index] == "<", index + 1 < scalars.count, "!/".unicodeScalars.contains(scalars[index + 1]) {
                    _ = read { $0 != ">" }  // A doctype or an end tag.
                }
                index += 1
                continue
            }
            index += 1
            let name = read { !isSpace($0) && $0 != ">" && $0 != "/" }.lowercased()
            var attributes: [(name: String, value: String)] = []
            while index < scalars.count, scalars[index] != ">" {
                if isSpace(scalars[index]) || scalars[index] == "/" {
                    index += 1
                    continue
                }
                let attributeName = read { !isSpace($0) && $0 != "=" && $0 != ">" }.lowercased()
                var value = ""
                if index < scalars.count, scalars[index] == "=" {
                    index += 1
                    if index < scalars.count, scalars[index] == "\"" || scalars[index] == "'" {
                        let quote = scalars[index]
                        index += 1
                        value = read { $0 != quote }
                        index += 1
                    } else {
                        value = read { !isSpace($0) && $0 != ">" }
                    }
                }
                attributes.append((attributeName, decode(value)))
            }
            index += 1
            var rawText: String?
            if name == "script" || name == "style" {
                let end = Array("</\(name)".unicodeScalars)
                let start = index
                while index < scalars.count, Array(scalars[index..<min(index + end.count, scalars.count)]) != end { index += 1 }
                var text = String.UnicodeScalarView()
                text.append(contentsOf: scalars[start..<index])
                rawText = String(text)
            }
            tags.append(HTMLTag(name: name, attributes: attributes, rawText: rawText))
        }
        return tags
    }

    /// The character references the gallery writes, decoded scalar by scalar (a Foundation
    /// search would treat `;` and a combining mark after it as one character).
    static func decode(_ text: String) -> String {
        let references: [(String.UnicodeScalarView, Unicode.Scalar)] = [
            ("&quot;", "\""), ("&#39;", "'"), ("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&"),
        ].map { (String($0.0).unicodeScalars, $0.1) }
        let scalars = Array(text.unicodeScalars)
        var decoded = String.UnicodeScalarView()
        var index = 0
        scan: while index < scalars.count {
            if scalars[index] == "&" {
                for (reference, scalar) in references where scalars[index...].starts(with: reference) {
                    decoded.append(scalar)
                    index += reference.count
                    continue scan
                }
            }
            decoded.append(scalars[index])
            index += 1
        }
        return String(decoded)
    }
}
