import Foundation

/// An ordered list of HTTP header fields, looked up by name without regard to case.
///
/// Repeated names and their order are kept exactly as received, because both carry meaning
/// in HTTP caching: RFC 9111 §4.2.1 prefers the first of two `max-age` directives, and the
/// first `Age` line wins over a later one. Names keep their original spelling for output.
///
/// ```swift
/// var headers: HeaderFields = ["Cache-Control": "max-age=60", "ETag": "\"v1\""]
/// headers.append("Cache-Control", "stale-if-error=600")
/// headers["cache-control"]               // "max-age=60, stale-if-error=600"
/// headers.values(for: "Cache-Control")   // ["max-age=60", "stale-if-error=600"]
/// ```
public struct HeaderFields: Sendable, Hashable {
    /// One header field line: a name and its value.
    ///
    /// Two fields are equal when their names match without regard to case and their values match exactly.
    public struct Field: Sendable, Hashable, CustomStringConvertible {
        /// The field name as received, for example `Cache-Control`.
        public let name: String
        /// The field value, without leading or trailing whitespace (RFC 9110 §5.5).
        public let value: String

        /// A field with `name` and `value`; whitespace around the value is removed.
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = HTTPSyntax.trimmed(value)
        }

        /// The field as it would appear on the wire: `Name: value`.
        public var description: String { "\(name): \(value)" }

        /// Whether the names match without regard to case and the values match exactly.
        public static func == (lhs: Field, rhs: Field) -> Bool {
            lhs.value == rhs.value && HTTPSyntax.namesEqual(lhs.name, rhs.name)
        }

        /// Hashes the lowercased name and the value, consistently with `==`.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(HTTPSyntax.lowercased(name))
            hasher.combine(value)
        }
    }

    /// Every field line, in order.
    public private(set) var fields: [Field]

    /// An empty list.
    public init() {
        fields = []
    }

    /// A list holding `fields` in order.
    public init(_ fields: some Sequence<Field>) {
        self.fields = Array(fields)
    }

    /// Whether the list holds no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// The combined value of every line named `name`, joined by ", " (RFC 9110 §5.3), or nil if none.
    ///
    /// Setting replaces every line of that name with one line (in place of the first), and nil removes them.
    /// Do not combine `Set-Cookie`: its values may contain commas; use ``values(for:)``.
    public subscript(name: String) -> String? {
        get { combinedValue(for: name) }
        set {
            if let newValue { replaceAll(named: name, with: [newValue]) } else { removeAll(named: name) }
        }
    }

    /// The value of each line named `name`, in order.
    public func values(for name: String) -> [String] {
        var values: [String] = []
        for field in fields where HTTPSyntax.namesEqual(field.name, name) { values.append(field.value) }
        return values
    }

    /// The value of the first line named `name`, or nil if there is none.
    public func firstValue(for name: String) -> String? {
        fields.first { HTTPSyntax.namesEqual($0.name, name) }?.value
    }

    /// Every line named `name` joined by ", " as RFC 9110 §5.3 allows, or nil if there is none.
    public func combinedValue(for name: String) -> String? {
        let values = values(for: name)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    /// The members of the comma-separated list formed by every line named `name` (RFC 9110 §5.6.1).
    ///
    /// Commas inside quoted strings do not split; empty members are dropped; members are trimmed.
    public func listMembers(for name: String) -> [String] {
        values(for: name).flatMap { HTTPSyntax.listMembers($0) }
    }

    /// Whether at least one line is named `name`.
    public func contains(_ name: String) -> Bool {
        fields.contains { HTTPSyntax.namesEqual($0.name, name) }
    }

    /// Adds a line at the end, after any existing lines of the same name.
    public mutating func append(_ name: String, _ value: String) {
        fields.append(Field(name, value))
    }

    /// Adds `field` at the end.
    public mutating func append(_ field: Field) {
        fields.append(field)
    }

    /// Removes every line named `name`.
    public mutating func removeAll(named name: String) {
        fields.removeAll { HTTPSyntax.namesEqual($0.name, name) }
    }

    /// Removes every line whose field matches `shouldRemove`.
    public mutating func removeAll(where shouldRemove: (Field) throws -> Bool) rethrows {
        try fields.removeAll(where: shouldRemove)
    }

    /// Replaces every line named `name` with one line per value, placed where the first old line was
    /// (at the end if there was none), so that replacing keeps the list's order stable.
    public mutating func replaceAll(named name: String, with values: [String]) {
        let position = fields.firstIndex { HTTPSyntax.namesEqual($0.name, name) }
        let spelling = position.map { fields[$0].name } ?? name
        removeAll(named: name)
        let replacements = values.map { Field(spelling, $0) }
        fields.insert(contentsOf: replacements, at: Swift.min(position ?? fields.count, fields.count))
    }
}

extension HeaderFields: RandomAccessCollection {
    /// The position of the first field.
    public var startIndex: Int { fields.startIndex }
    /// The position after the last field.
    public var endIndex: Int { fields.endIndex }
    /// The field at `position`.
    public subscript(position: Int) -> Field { fields[position] }
}

extension HeaderFields: ExpressibleByDictionaryLiteral {
    /// A list of the literal's pairs in order; a name may repeat.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements.map { Field($0.0, $0.1) })
    }
}

extension HeaderFields: CustomStringConvertible {
    /// The fields one per line, as they would appear on the wire.
    public var description: String {
        fields.map(\.description).joined(separator: "\n")
    }
}
