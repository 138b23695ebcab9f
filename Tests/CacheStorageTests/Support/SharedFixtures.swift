import Foundation

/// The project's shared test data (`../shared` beside the checkout): the image corpus.
///
/// Missing on a fresh clone elsewhere: tests that need it are skipped there with a notice.
/// CI sets `CACHE_TESTS_REQUIRE_SHARED=1`, which turns that skip into a failure.
enum SharedFixtures {
    static let root: URL? = {
        var directory = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { directory.deleteLastPathComponent() }
        let shared = directory.deletingLastPathComponent().appendingPathComponent("shared", isDirectory: true)
        return FileManager.default.fileExists(atPath: shared.appendingPathComponent("corpus/manifest.tsv").path)
            ? shared : nil
    }()

    static let isRequired = ProcessInfo.processInfo.environment["CACHE_TESTS_REQUIRE_SHARED"] == "1"

    /// Whether tests needing `../shared` run: when it exists, or when CI demands it (and they fail without it).
    static var isAvailable: Bool {
        if root == nil && !isRequired {
            print("notice: ../shared not found beside the checkout; skipping tests that need the image corpus")
        }
        return root != nil || isRequired
    }

    /// Every regular file under `corpus/real/`.
    static func realImages() throws -> [URL] {
        guard let root else { throw FixtureError.sharedMissing }
        let base = root.appendingPathComponent("corpus/real", isDirectory: true)
        let enumerator = FileManager.default.enumerator(at: base, includingPropertiesForKeys: [.isRegularFileKey])
        var files: [URL] = []
        while let url = enumerator?.nextObject() as? URL {
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true { files.append(url) }
        }
        return files.sorted { $0.path < $1.path }
    }

    enum FixtureError: Error, CustomStringConvertible {
        case sharedMissing
        var description: String { "../shared/corpus is missing beside the checkout (required in CI)" }
    }
}
