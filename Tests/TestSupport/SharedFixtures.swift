import Foundation

/// The project's shared test data (`../shared` beside the checkout): the image corpus.
///
/// Missing on a fresh clone elsewhere: tests that need it are skipped there with a notice.
/// CI sets `CACHE_TESTS_REQUIRE_SHARED=1`, which turns that skip into a failure.
public enum SharedFixtures {
    /// The `shared` folder beside the checkout, when present.
    public static let root: URL? = {
        var directory = URL(fileURLWithPath: #filePath)
        // Tests/TestSupport/SharedFixtures.swift, up three: the checkout; `shared` sits beside it.
        for _ in 0..<3 { directory.deleteLastPathComponent() }
        let shared = directory.deletingLastPathComponent().appendingPathComponent("shared", isDirectory: true)
        return FileManager.default.fileExists(atPath: shared.appendingPathComponent("corpus/manifest.tsv").path)
            ? shared : nil
    }()

    /// Whether CI demands the shared data (`CACHE_TESTS_REQUIRE_SHARED=1`).
    public static let isRequired = ProcessInfo.processInfo.environment["CACHE_TESTS_REQUIRE_SHARED"] == "1"

    /// Whether tests needing `../shared` run: when it exists, or when CI demands it (and they fail without it).
    public static var isAvailable: Bool {
        if root == nil && !isRequired {
            print("notice: ../shared not found beside the checkout; skipping tests that need the image corpus")
        }
        return root != nil || isRequired
    }

    /// Every regular file under `corpus/real/`.
    public static func realImages() throws -> [URL] {
        try files(under: "corpus/real")
    }

    /// Every regular file under `relativePath` inside the shared folder, sorted by path.
    public static func files(under relativePath: String) throws -> [URL] {
        guard let root else { throw FixtureError.sharedMissing }
        let base = root.appendingPathComponent(relativePath, isDirectory: true)
        let enumerator = FileManager.default.enumerator(at: base, includingPropertiesForKeys: [.isRegularFileKey])
        var files: [URL] = []
        while let url = enumerator?.nextObject() as? URL {
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true { files.append(url) }
        }
        return files.sorted { $0.path < $1.path }
    }

    /// Why shared data could not be found.
    public enum FixtureError: Error, CustomStringConvertible {
        case sharedMissing
        public var description: String { "../shared/corpus is missing beside the checkout (required in CI)" }
    }
}
