import Foundation

extension StoredResponse {
    /// This response freshened by a `304 Not Modified` (RFC 9111 §4.3.4), or nil when the 304 speaks
    /// about a different representation.
    ///
    /// Every field the 304 carries replaces all stored lines of that name; fields it does not carry
    /// are kept. The exceptions, and why:
    /// - `Content-Length` is kept: it describes the stored body, which a 304 does not replace (§3.2);
    /// - hop-by-hop and `Proxy-*` fields of the 304 are not stored, as for any response (§3.1);
    /// - without a `Date` in the 304, `Date` becomes `responseTime` (RFC 9110 §6.6.1): the old `Date`
    ///   would make the just-validated response look as old as the original;
    /// - without an `Age` in the 304, the stored `Age` is dropped for the same reason: it measured the
    ///   original response's time in upstream caches, not this validation's.
    ///
    /// The status and the `Vary`-selected request fields stay as stored.
    ///
    /// - Parameters:
    ///   - notModified: the 304 (a `200` to a `HEAD` request freshens the same way, §4.3.5).
    ///   - requestTime: when the conditional request was sent.
    ///   - responseTime: when the 304 arrived.
    /// - Returns: nil when the 304's validators do not match this response's (§4.3.4): a different
    ///   `ETag`, or a different `Last-Modified` when no `ETag` is given. Fetch the resource again then.
    public func updating(with notModified: HTTPResponseHead, requestTime: Date, responseTime: Date)
        -> StoredResponse?
    {
        guard validatorsMatch(notModified.headers) else { return nil }
        let incoming = StorableFields.filter(notModified.headers)
        var merged = headers
        var replaced = Set<String>()
        for field in incoming {
            let name = HTTPSyntax.lowercased(field.name)
            guard name != "content-length", !replaced.contains(name) else { continue }
            replaced.insert(name)
            merged.replaceAll(named: field.name, with: incoming.values(for: field.name))
        }
        if !replaced.contains("date") { merged["Date"] = HTTPDate.string(from: responseTime) }
        if !replaced.contains("age") { merged.removeAll(named: "Age") }
        // The 304 may have changed Cache-Control, and with it which fields a qualified no-cache excludes.
        var updated = self
        updated.headers = StorableFields.filter(merged)
        updated.requestTime = requestTime
        updated.responseTime = responseTime
        return updated
    }

    /// Whether a 304 with `incoming` headers identifies this response for update (RFC 9111 §4.3.4).
    ///
    /// Entity tags compare weakly (RFC 9110 §8.8.3.2), since one stored response per key leaves no
    /// "most recent of several" to choose. A 304 without validators can only refer to this response.
    private func validatorsMatch(_ incoming: HeaderFields) -> Bool {
        if let newTag = incoming.firstValue(for: "ETag") {
            guard let storedTag = headers.firstValue(for: "ETag") else { return false }
            return Self.opaqueTag(newTag) == Self.opaqueTag(storedTag)
        }
        if let newDate = incoming.firstValue(for: "Last-Modified"),
            let storedDate = headers.firstValue(for: "Last-Modified")
        {
            return HTTPDate.parse(newDate) == HTTPDate.parse(storedDate) && HTTPDate.parse(newDate) != nil
        }
        return true
    }

    private static func opaqueTag(_ tag: String) -> String {
        tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag
    }
}
