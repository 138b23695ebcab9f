import CacheArchive
import Foundation

/// The `--json` form of every report: snake_case keys in sorted order, ISO 8601 dates, pretty-printed, one
/// document on standard output.
enum JSONOutput {
    /// The export manifest's conventions, so a script reads reports and manifests alike.
    static func encoder() -> JSONEncoder { Manifest.encoder() }

    /// Reads a report printed by ``print(_:)`` (one cachectl run reading another's).
    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    /// Prints `value` as JSON on standard output.
    static func print(_ value: some Encodable) throws {
        let data = try encoder().encode(value)
        Terminal.print(String(decoding: data, as: UTF8.self))
    }
}
