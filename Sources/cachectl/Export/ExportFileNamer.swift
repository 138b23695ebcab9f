/// File names for exported entries that are safe whatever the key holds.
///
/// A name is a readable stem from the key, a short hash of the whole key and the extension of the
/// sniffed format: `cdn.example.com_avatars_42-3f9a1c0b7e.png`. The stem keeps only ASCII
/// letters, digits, `.`, `-` and `_` (everything else, `/`, `%`, NUL and non-ASCII included, becomes
/// `_`), never starts with `.` or `-` (no hidden files, no `..`, nothing a shell reads as an
/// option), and is cut to ``maxStemLength``; so a name is one path component of at most about 100
/// bytes. The hash tells apart keys with the same stem; a name already handed out (compared
/// without regard to case, for case-insensitive file systems) gets `-2`, `-3` … before the extension.
struct ExportFileNamer {
    static let maxStemLength = 80

    private var taken: Set<String> = []

    /// A fresh name for `key`'s file, ending in `.fileExtension`.
    mutating func name(for key: String, fileExtension: String) -> String {
        let base = "\(Self.stem(for: key))-\(Self.shortHash(key))"
        let safeExtension = Self.stem(for: fileExtension).prefix(8)
        var name = "\(base).\(safeExtension)"
        var attempt = 1
        while !taken.insert(name.lowercased()).inserted {
            attempt += 1
            name = "\(base)-\(attempt).\(safeExtension)"
        }
        return name
    }

    /// The readable part: the key without its scheme, reduced to safe characters.
    static func stem(for key: String) -> String {
        var text = Substring(key)
        if let schemeEnd = text.range(of: "://") { text = text[schemeEnd.upperBound...] }
        var stem = ""
        for scalar in text.unicodeScalars {
            let isSafe = scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "._-".unicodeScalars.contains(scalar))
            let character: Character = isSafe ? Character(scalar) : "_"
            // Runs of replaced characters collapse to one `_`, so the stem stays readable.
            if character == "_" && stem.last == "_" { continue }
            stem.append(character)
            if stem.count >= maxStemLength { break }
        }
        while let first = stem.first, ".-_".contains(first) { stem.removeFirst() }
        // The key's own image extension would repeat the one the format gives.
        if let dot = stem.lastIndex(of: "."), imageExtensions.contains(stem[stem.index(after: dot)...].lowercased()) {
            stem = String(stem[..<dot])
        }
        while let last = stem.last, "._".contains(last) { stem.removeLast() }
        return stem.isEmpty ? "entry" : stem
    }

    private static let imageExtensions: Set<String> = [
        "jpg", "jpeg", "png", "gif", "webp", "heic", "heif", "avif", "bmp", "tif", "tiff", "ico", "svg", "svgz",
    ]

    /// Ten hex digits of the key's FNV-1a 64-bit hash: stable across runs and machines.
    static func shortHash(_ key: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String((String(repeating: "0", count: 16 - hex.count) + hex).prefix(10))
    }
}
