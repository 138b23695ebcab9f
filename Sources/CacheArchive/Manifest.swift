import Foundation

/// `manifest.json`, the index of an export folder: how it is written and how it is read back.
///
/// Read back, a manifest is input like any other (an export someone sent, a folder under /tmp): a
/// damaged one fails with a decoding error, and every `file` it names is checked to stay inside
/// the folder before anything is opened.
public enum Manifest {
    /// The manifest's JSON: pretty-printed, sorted snake_case keys, ISO 8601 dates (cachectl's
    /// `--json` reports are written the same way, with this encoder).
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// The manifest's bytes.
    public static func encode(_ entries: [ManifestEntry]) throws -> Data {
        try encoder().encode(entries)
    }

    /// The entries of a manifest's bytes.
    /// - Throws: `DecodingError` when `data` is not a manifest.
    public static func decode(_ data: Data) throws -> [ManifestEntry] {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode([ManifestEntry].self, from: data)
    }

    /// The path `file` names inside the folder at `base` (an absolute path without symbolic links),
    /// or nil when it would leave it: absolute, climbing out with `..`, or holding a NUL byte.
    /// Links inside the folder are for the caller to check when it opens the file.
    public static func containedPath(_ file: String, inside base: String) -> String? {
        guard !file.hasPrefix("/"), !file.contains("\0") else { return nil }
        let named = URL(fileURLWithPath: base).appendingPathComponent(file).standardizedFileURL.path
        return named.hasPrefix(base + "/") ? named : nil
    }
}
