import CacheStorage
import Foundation
import TestSupport
import Testing

@Suite("export with hostile keys", .enabled(if: SharedFixtures.isAvailable))
struct HostileKeyTests {
    static let keys: [String] = [
        "../../../../tmp/escaped.png", "/etc/passwd", "..", ".", "...", "./.hidden", "-rf", "%2e%2e/%2e%2e/x.png",
        "https://evil.example/%2e%2e%2f%2e%2e%2fetc%2fpasswd", "a\u{0}b.png", "a/b", "a?b", "a b", "A/B", "a\\..\\..\\b",
        "https://host/path/" + String(repeating: "k", count: 10_000), String(repeating: "é", count: 3_000),
        "con", "nul.png", "<script>alert(1)</script>", "\"quoted\" & 'single'", "emoji-🙂.png", "\n\r\t",
    ]

    @Test("hostile keys stay inside the export folder, each in its own file, and come back on import")
    func hostileKeys() async throws {
        let cache = TemporaryDirectory("hostile-cache")
        let png = try Data(contentsOf: Corpus.folder.appendingPathComponent("real/png/basn0g02.png"))
        let store = try PersistentStore(directory: cache.url)
        // Each key gets distinct bytes (a PNG with a key-specific trailer is still sniffed as PNG).
        try await store.put(Self.keys.enumerated().map { index, key in
            NewEntry(key: key, data: png + Data("\(index)".utf8), attributes: EntryAttributes(format: "png"))
        })
        store.close()

        let parent = TemporaryDirectory("hostile-export")
        let folder = parent.url.appendingPathComponent("export", isDirectory: true)
        let result = try await Cachectl.run(["export", "--path", cache.url.path, "--to", folder.path, "--html"])
        #expect(result.status == 0, "\(result)")

        // Nothing but the export folder appeared beside it, and nothing below it but plain files.
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.url.path) == ["export"])
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(names.count == Self.keys.count + 2)
        for name in names {
            var isDirectory: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path, isDirectory: &isDirectory))
            #expect(!isDirectory.boolValue)
            #expect(name.utf8.count <= 120, "\(name)")
            #expect(!name.hasPrefix(".") && !name.hasPrefix("-"), "\(name)")
        }
        #expect(!FileManager.default.fileExists(atPath: "/tmp/escaped.png"))

        let manifest = try JSONDecoder.snakeCase.decode(
            [ManifestRow].self, from: Data(contentsOf: folder.appendingPathComponent("manifest.json")))
        #expect(Set(manifest.map(\.key)) == Set(Self.keys))
        #expect(Set(manifest.map { $0.file.lowercased() }).count == Self.keys.count, "distinct even on case-insensitive disks")
        for entry in manifest {
            let index = try #require(Self.keys.firstIndex(of: entry.key))
            #expect(try Data(contentsOf: folder.appendingPathComponent(entry.file)) == png + Data("\(index)".utf8))
            #expect(entry.file.hasSuffix(".png"))
        }
        let gallery = try String(contentsOf: folder.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(!gallery.contains("<script>alert"), "keys are escaped in the gallery")

        let restored = TemporaryDirectory("hostile-restored")
        let reimport = try await Cachectl.run(["import", folder.path, "--path", restored.url.path, "--json"])
        #expect(reimport.status == 0, "\(reimport)")
        let reopened = try PersistentStore(directory: restored.url)
        defer { reopened.close() }
        for (index, key) in Self.keys.enumerated() {
            #expect(try reopened.get(key)?.data == png + Data("\(index)".utf8), "\(key.prefix(40))")
        }
    }
}
