import Foundation

/// The directives of a `Cache-Control` header (RFC 9111 §5.2), for requests and responses alike.
///
/// Parsing is deliberately forgiving about *shape* and conservative about *meaning*:
/// - every line of the field is read, in order, as one comma-separated list; commas inside
///   quoted strings do not split (`ext="max-age=1, x"` is one directive);
/// - names are case-insensitive (`No-CaChE` is `no-cache`);
/// - arguments may be tokens or quoted strings (`max-age="60"` is 60 seconds);
/// - a directive with a malformed argument keeps its name, so `no-store =1` still forbids storing,
///   and `max-age =60` is a `max-age` whose value is invalid (see ``maxAge``);
/// - when a directive repeats, the first occurrence wins (RFC 9111 §4.2.1).
///
/// ```swift
/// let directives = CacheControl(headers: response.headers)
/// directives.maxAge            // Duration?
/// directives.noStore           // Bool
/// ```
package struct CacheControl: Sendable, Hashable {
    /// One directive: a lowercased name and its argument, if it had one.
    package struct Directive: Sendable, Hashable, CustomStringConvertible {
        /// The directive name, lowercased: `max-age`, `no-cache`, or an extension.
        package let name: String
        /// The argument: a token as written, a quoted string unescaped, or (for a malformed member) the
        /// raw text after the name; nil when the directive had none.
        package let argument: String?

        /// A directive; `name` is lowercased.
        package init(name: String, argument: String? = nil) {
            self.name = HTTPSyntax.lowercased(name)
            self.argument = argument
        }

        /// The directive as it would be written, quoting the argument when it is not a token.
        package var description: String {
            guard let argument else { return name }
            if HTTPSyntax.isToken(argument) { return "\(name)=\(argument)" }
            let escaped = argument.replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "\"", with: "\\\"")
            return "\(name)=\"\(escaped)\""
        }
    }

    /// Every directive in the order it appeared, repeats included.
    package let directives: [Directive]

    /// Directives given directly.
    package init(directives: [Directive]) {
        self.directives = directives
    }

    /// The directives of one `Cache-Control` field value, for example `max-age=60, must-revalidate`.
    package init(_ value: some StringProtocol) {
        self.init(fieldValues: [String(value)])
    }

    /// The directives of several `Cache-Control` field lines, read in order as one list.
    package init(fieldValues: some Sequence<String>) {
        // Each line's bytes are split and read in place: this runs for every stored response judged.
        var directives: [Directive] = []
        for value in fieldValues {
            HTTPSyntax.forEachListMember(of: Array(value.utf8)[...]) { member in
                if let directive = Self.directive(from: member) { directives.append(directive) }
            }
        }
        self.directives = directives
    }

    /// The directives of every `Cache-Control` line in `headers`.
    package init(headers: HeaderFields) {
        self.init(fieldValues: headers.lazy.filter { HTTPSyntax.namesEqual($0.name, "Cache-Control") }.map(\.value))
    }

    /// Whether no directive is present.
    package var isEmpty: Bool { directives.isEmpty }

    /// Whether a directive named `name` (any case) is present.
    package func contains(_ name: String) -> Bool {
        let name = HTTPSyntax.lowercased(name)
        return directives.contains { $0.name == name }
    }

    /// The first directive named `name` (any case), or nil.
    package func first(_ name: String) -> Directive? {
        let name = HTTPSyntax.lowercased(name)
        return directives.first { $0.name == name }
    }

    /// Reads one list member: `name`, `name=token` or `name="quoted"`.
    private static func directive(from bytes: ArraySlice<UInt8>) -> Directive? {
        let nameEnd = bytes.firstIndex { !HTTPSyntax.isTokenByte($0) } ?? bytes.endIndex
        // A member that does not start with a token names nothing we could honour.
        guard nameEnd > bytes.startIndex else { return nil }
        let name = HTTPSyntax.string(bytes[..<nameEnd])
        let rest = bytes[nameEnd...]
        guard let first = rest.first else { return Directive(name: name) }
        guard first == UInt8(ascii: "=") else {
            // "max-age =60": keep the name with the raw rest, which no value parser accepts.
            return Directive(name: name, argument: HTTPSyntax.string(rest))
        }
        let value = rest.dropFirst()
        if let (content, after) = HTTPSyntax.quotedString(at: value), HTTPSyntax.trimming(after).isEmpty {
            return Directive(name: name, argument: content)
        }
        return Directive(name: name, argument: HTTPSyntax.string(value))
    }
}

extension CacheControl: CustomStringConvertible {
    /// The directives as one field value.
    package var description: String {
        directives.map(\.description).joined(separator: ", ")
    }
}
