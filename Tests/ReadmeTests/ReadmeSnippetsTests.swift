import CacheStorage
import Foundation
import ImageCache
import LoopbackOrigin
import TestSupport
import Testing

/// Every Swift snippet of the README, compiled (``ReadmeSnippets.swift`` is generated from the
/// README, and checked here to still match it) and run against a real origin.
///
/// After changing a snippet: `README_SNIPPETS_RECORD=1 swift test --filter ReadmeSnippetsTests`
/// (or `tools/readme-snippets`) writes ``ReadmeSnippets.swift`` again; then the build checks it.
@Suite("README snippets")
struct ReadmeSnippetsTests {
    static let testsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let readme = testsFolder.appendingPathComponent("../../README.md").standardizedFileURL
    static let generated = testsFolder.appendingPathComponent("ReadmeSnippets.swift")

    @Test("ReadmeSnippets.swift is what the README's snippets make (regenerate it after editing one)")
    func generatedFileMatchesReadme() throws {
        let expected = SnippetExtractor.file(fromReadme: try String(contentsOf: Self.readme, encoding: .utf8))
        if ProcessInfo.processInfo.environment["README_SNIPPETS_RECORD"] != nil {
            try expected.write(to: Self.generated, atomically: true, encoding: .utf8)
        }
        let committed = try String(contentsOf: Self.generated, encoding: .utf8)
        #expect(
            committed == expected,
            "the README's snippets changed: run README_SNIPPETS_RECORD=1 swift test --filter ReadmeSnippetsTests, then build")
        #expect(SnippetExtractor.snippets(in: try String(contentsOf: Self.readme, encoding: .utf8)).count >= 4)
    }

    @Test("each snippet runs and shows or prints a real result", arguments: ReadmeSnippets.all.indices)
    func runs(_ index: Int) async throws {
        let png = PNGEncoder.encode(width: 12, height: 10) { x, y in (UInt8(x * 20), UInt8(y * 25), 90) }
        let origin = try await LoopbackOrigin.start { _ in
            OriginResponse(headers: [HeaderLine("Cache-Control", "max-age=3600")], body: png)
        }
        defer { Task { await origin.stop() } }
        let folder = TemporaryDirectory("readme-snippet-\(index)")
        let shown = ShownImages()
        let context = SnippetContext(
            url: origin.url("/readme/\(index).png"), cacheFolder: folder.url, bytes: png, shown: shown)
        let snippet = ReadmeSnippets.all[index]
        if snippet.usesSharedPipeline && ProcessInfo.processInfo.environment[PersistentStore.directoryEnvironmentVariable] == nil {
            // ImagePipeline.shared would keep its cache in the user's own folder: the snippet runs
            // in a copy of this test process whose environment names a temporary one instead.
            let run = try await Self.sharedPipelineRun.value
            #expect(run.status == 0, "the snippets failed in the child process:\n\(run.output)")
            #expect(
                run.cachedKeys.contains { $0.hasSuffix("/readme/\(index).png") },
                "snippet \(index) stored nothing through ImagePipeline.shared: \(run.cachedKeys)")
            return
        }
        try await snippet.run(context)
        #expect(shown.all.allSatisfy { $0 == png }, "a snippet showed something other than the origin's image")
        if snippet.shows { #expect(!shown.all.isEmpty, "the snippet showed nothing") }
        #expect(origin.requests.count <= 3, "\(origin.requests.count) requests for one image")
    }

    /// What the snippets did in a child test process whose shared pipeline kept its cache in a
    /// temporary folder: its exit status and output, and the keys that folder's store holds after.
    struct SharedPipelineRun: Sendable {
        var status: Int32
        var output: String
        var cachedKeys: [String]
    }

    /// This test binary run again for `runs(_:)` alone, with `SWIFT_IMAGE_CACHE_PATH` set (what
    /// tools/test sets for a whole run); once, however many snippets use the shared pipeline.
    static let sharedPipelineRun = Task { () async throws -> SharedPipelineRun in
        let folder = TemporaryDirectory("readme-shared-pipeline")
        let child = try await WorkerProcess(
            executable: try #require(Platform.executableURL),
            arguments: ["--testing-library", "swift-testing", "--filter", "ReadmeSnippetsTests/runs"],
            environment: [PersistentStore.directoryEnvironmentVariable: folder.url.path])
        let finished = await child.finish()
        let store = try PersistentStore(directory: folder.url)
        let keys = try store.entries().map(\.key)
        store.close()
        // The folder goes once the store is closed, not after its last mention above.
        withExtendedLifetime(folder) {}
        return SharedPipelineRun(status: finished.status, output: finished.output + finished.errors, cachedKeys: keys)
    }
}
