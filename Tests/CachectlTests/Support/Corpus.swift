import Foundation
import TestSupport

/// Rows of `../shared/corpus/manifest.tsv`, and caches filled from the corpus by `cachectl import`.
enum Corpus {
    struct Row {
        /// The path inside `corpus/`, such as `real/png/tux.png`.
        var path: String
        /// The manifest's format column (`PNG`, `SVGZ` …).
        var format: String
        var width: Int?
        var height: Int?
        /// `valid`, `must-reject` or `either`.
        var expected: String
        /// Where a careful loader first notices a bad file: `sniff`, `header`, `policy`, `structure` …
        var detectAt: String

        /// The format name cachectl reports: lowercase, SVGZ being SVG compressed.
        var cachectlFormat: String { format == "SVGZ" ? "svg" : format.lowercased() }
    }

    static var folder: URL { SharedFixtures.root!.appendingPathComponent("corpus", isDirectory: true) }

    static func rows(under prefix: String) throws -> [Row] {
        let text = try String(contentsOf: folder.appendingPathComponent("manifest.tsv"), encoding: .utf8)
        var lines = text.split(separator: "\n")
        let columns = lines.removeFirst().split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        return lines.compactMap { line in
            let values = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            let row = Dictionary(uniqueKeysWithValues: zip(columns, values))
            guard let path = row["path"], path.hasPrefix(prefix) else { return nil }
            return Row(
                path: path, format: row["format"] ?? "", width: row["width"].flatMap { Int($0) },
                height: row["height"].flatMap { Int($0) }, expected: row["expected"] ?? "",
                detectAt: row["detect_at"] ?? "")
        }
    }

    static let baseURL = "https://cdn.example.com/corpus"

    /// A cache at `directory` holding every file of `corpus/<subfolder>` under `baseURL/<path>`.
    @discardableResult
    static func importInto(_ directory: URL, subfolder: String = "real", maxAge: String = "1d") async throws
        -> Cachectl.Result
    {
        try await Cachectl.importFolder(
            folder.appendingPathComponent(subfolder), into: directory, baseURL: "\(baseURL)/\(subfolder)", maxAge: maxAge)
    }
}
