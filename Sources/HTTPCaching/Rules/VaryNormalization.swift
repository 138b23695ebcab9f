import Foundation

/// How request field values are made comparable for `Vary` (RFC 9111 §4.1 permits normalising
/// "in ways known to have identical semantics").
package enum VaryNormalization {
    /// Fields whose list members are case-insensitive and whose order carries no meaning once each
    /// member's `q` weight is explicit (RFC 9110 §12.4.2): `en, de` selects like `DE, en`.
    package static let unorderedCaseInsensitiveFields: Set<String> = ["accept-language", "accept-encoding"]

    /// The comparable form of a field's `lines`, or nil when the field is absent.
    ///
    /// Lines are combined into one list and whitespace around members removed, so `Foo: 1, 2` and two
    /// lines `Foo: 1` / `Foo: 2` compare equal; for ``unorderedCaseInsensitiveFields`` members are also
    /// lowercased and sorted.
    package static func normalized(_ lines: [String], field: String) -> String? {
        guard !lines.isEmpty else { return nil }
        var members = lines.flatMap { HTTPSyntax.listMembers($0) }
        if unorderedCaseInsensitiveFields.contains(HTTPSyntax.lowercased(field)) {
            members = members.map { HTTPSyntax.lowercased($0).replacingOccurrences(of: " ", with: "") }.sorted()
        }
        return members.joined(separator: ", ")
    }
}
