import Foundation
import ImageFormats

/// One row of `../shared/corpus/manifest.tsv`.
public struct CorpusEntry: Sendable, CustomStringConvertible {
    /// The path inside `corpus/`, such as `real/png/tux.png`.
    public var path: String
    /// The manifest's format column (`PNG`, `SVGZ`, `UNKNOWN`, ...).
    public var formatName: String
    public var width: Int?
    public var height: Int?
    public var isAnimated: Bool
    public var frameCount: Int?
    /// What the file is, as the manifest describes it (`baseline, 8-bit, …, EXIF orientation=6`).
    public var variant: String
    /// `valid`, `must-reject` or `either`.
    public var expected: String
    /// Where a careful loader first notices a bad file: a stage, or `decode`, `render`, `-`.
    public var detectAt: String
    public var url: URL

    /// The top folder and category: `real/png`, `bad/bomb`.
    public var category: String { path.split(separator: "/").prefix(2).joined(separator: "/") }

    /// The format the validator should report (SVGZ is SVG compressed).
    public var expectedFormat: ImageFormat? {
        formatName == "SVGZ" ? .svg : ImageFormat(rawValue: formatName.lowercased())
    }

    /// The latest stage at which the validator must refuse the file, when the manifest names one.
    public var latestStage: ValidationStage? {
        switch detectAt {
        case "sniff": .sniff
        case "header": .header
        case "policy": .policy
        case "structure": .structure
        default: nil
        }
    }

    public var description: String { path }

    public func contents() throws -> Data { try Data(contentsOf: url) }
}

/// Reads the corpus manifest through ``SharedFixtures``.
public enum CorpusManifest {
    /// Every row, in manifest order.
    public static func entries() throws -> [CorpusEntry] {
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
                variant: row["variant"] ?? "",
                expected: row["expected"] ?? "",
                detectAt: row["detect_at"] ?? "",
                url: corpus.appendingPathComponent(path)
            )
        }
    }

    /// The rows whose path starts with `prefix`.
    public static func entries(under prefix: String) throws -> [CorpusEntry] {
        try entries().filter { $0.path.hasPrefix(prefix) }
    }
}
