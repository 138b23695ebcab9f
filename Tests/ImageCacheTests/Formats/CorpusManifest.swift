import Foundation
import ImageCache
import TestSupport

/// One row of `../shared/corpus/manifest.tsv`.
struct CorpusEntry: CustomStringConvertible {
    /// The path inside `corpus/`, such as `real/png/tux.png`.
    var path: String
    /// The manifest's format column (`PNG`, `SVGZ`, `UNKNOWN`, ...).
    var formatName: String
    var width: Int?
    var height: Int?
    var isAnimated: Bool
    var frameCount: Int?
    /// `valid`, `must-reject` or `either`.
    var expected: String
    /// Where a careful loader first notices a bad file: a stage, or `decode`, `render`, `-`.
    var detectAt: String
    var url: URL

    /// The top folder and category: `real/png`, `bad/bomb`.
    var category: String { path.split(separator: "/").prefix(2).joined(separator: "/") }

    /// The format the validator should report (SVGZ is SVG compressed).
    var expectedFormat: ImageFormat? {
        formatName == "SVGZ" ? .svg : ImageFormat(rawValue: formatName.lowercased())
    }

    /// The latest stage at which the validator must refuse the file, when the manifest names one.
    var latestStage: ValidationStage? {
        switch detectAt {
        case "sniff": .sniff
        case "header": .header
        case "policy": .policy
        case "structure": .structure
        default: nil
        }
    }

    var description: String { path }

    func contents() throws -> Data { try Data(contentsOf: url) }
}

/// Reads the corpus manifest through ``SharedFixtures``.
enum CorpusManifest {
    /// Every row, in manifest order.
    static func entries() throws -> [CorpusEntry] {
        guard let root = SharedFixtures.root else { throw SharedFixtures.FixtureError.sharedMissing }
        let corpus = root.appendingPathComponent("corpus", isDirectory: true)
        let text = try String(contentsOf: corpus.appendingPathComponent("manifest.tsv"), encoding: .utf8)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        let columns = lines.removeFirst().split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        return lines.map { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            let row = Dictionary(uniqueKeysWithValues: zip(columns, fields + Array(repeating: "", count: max(0, columns.count - fields.count))))
            let path = row["path"] ?? ""
            return CorpusEntry(
                path: path,
                formatName: row["format"] ?? "",
                width: Int(row["width"] ?? ""),
                height: Int(row["height"] ?? ""),
                isAnimated: row["animated"] == "y",
                frameCount: Int(row["frames"] ?? ""),
                expected: row["expected"] ?? "",
                detectAt: row["detect_at"] ?? "",
                url: corpus.appendingPathComponent(path)
            )
        }
    }

    /// The rows whose path starts with `prefix`.
    static func entries(under prefix: String) throws -> [CorpusEntry] {
        try entries().filter { $0.path.hasPrefix(prefix) }
    }
}
