extension String {
    /// The string as it may be printed to a terminal: control characters (newlines, escape
    /// sequences, NUL) and bidirectional overrides are shown as `\u{1b}`-style escapes, so a
    /// hostile key can neither break a table's lines nor drive the operator's terminal.
    var displaySafe: String {
        var safe = ""
        for scalar in unicodeScalars {
            if scalar.properties.generalCategory == .control || (0x202A...0x202E).contains(scalar.value)
                || (0x2066...0x2069).contains(scalar.value)
            {
                safe += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                safe.unicodeScalars.append(scalar)
            }
        }
        return safe
    }

    /// ``displaySafe``, cut to `limit` characters with an ellipsis in the middle, so both the host
    /// and the file name of a long URL stay visible.
    func displaySafe(limit: Int) -> String {
        let safe = displaySafe
        guard safe.count > limit, limit > 3 else { return safe }
        let head = (limit - 1) / 2
        return String(safe.prefix(head)) + "…" + String(safe.suffix(limit - 1 - head))
    }
}
