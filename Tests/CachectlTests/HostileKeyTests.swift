import CacheStorage
import Foundation
import LoopbackOrigin
import TestSupport
import Testing

@Suite("export with hostile keys")
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
        let png = PNGEncoder.encode(width: 32, height: 32) { x, y in (UInt8(x * 8), UInt8(y * 8), 90) }
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
        // Each image, its preview for the gallery, the manifest and the gallery.
        #expect(names.count == Self.keys.count * 2 + 2)
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

    @Test("the gallery holds hostile keys, formats, header values and paths as data: no breakout, one hashed script, SVGs never linked")
    func galleryEscaping() async throws {
        let png = PNGEncoder.encode(width: 32, height: 32) { x, y in (UInt8(x * 8), UInt8(y * 8), 90) }
        let svg = Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><script>alert(1)</script></svg>"#.utf8)
        let hostile = #""><script>alert(3)</script>"#
        let pngKeys = [
            "https://x.test/\"\u{301} onmouseover=alert(1) x=\"\u{301}.png", "https://x.test/<script>alert(1)</script>.png",
            "https://x.test/it's & <b>bold</b>.png", "\"\u{301}><img src=x onerror=alert(2)>", "'\u{301} onfocus='alert(5)",
        ]
        var entries = pngKeys.enumerated().map { index, key in
            NewEntry(key: key, data: png + Data("\(index)".utf8), attributes: EntryAttributes(format: hostile))
        }
        entries.append(NewEntry(key: "https://x.test/drawing.svg\"\u{301}", data: svg))
        entries.append(NewEntry(key: "https://x.test/not-an-image", data: Data("hello".utf8), attributes: EntryAttributes(
            etag: hostile, lastModified: "<i>", contentType: "text/html\"\u{301}><b>", format: hostile)))
        let keys = entries.map(\.key)
        // The cache folder's path is shown on the page too.
        let cache = TemporaryDirectory("gallery-\"\u{301}><img src=x onerror=alert(6)>'&")
        let store = try PersistentStore(directory: cache.url)
        try await store.put(entries)
        store.close()

        let export = TemporaryDirectory("gallery-export")
        let folder = export.url.appendingPathComponent("export", isDirectory: true)
        let result = try await Cachectl.run(["export", "--path", cache.url.path, "--to", folder.path, "--html"])
        #expect(result.status == 0, "\(result)")
        let gallery = try String(contentsOf: folder.appendingPathComponent("index.html"), encoding: .utf8)
        let tags = HTMLTag.parse(gallery)

        let allowedTags: Set = ["html", "head", "meta", "title", "style", "script", "body", "header", "h1", "p", "code", "input", "main", "figure", "a", "div", "img", "figcaption"]
        let allowedAttributes: Set = [
            "lang", "charset", "http-equiv", "content", "name", "id", "type", "placeholder", "autocomplete", "data-search", "class", "href",
            "data-label", "src", "loading", "decoding", "width", "height", "alt", "title",
        ]
        for tag in tags {
            #expect(allowedTags.contains(tag.name), "an injected <\(tag.name)>")
            for attribute in tag.attributes {
                #expect(allowedAttributes.contains(attribute.name), "an injected \(attribute.name)= on <\(tag.name)>")
            }
        }
        let titles = tags.filter { $0.name == "div" && $0.attribute("class") == "key" }.compactMap { $0.attribute("title") }
        #expect(titles.sorted() == keys.sorted(), "each key comes back whole from its title attribute")
        let searches = tags.filter { $0.name == "figure" }.compactMap { $0.attribute("data-search") }
        #expect(searches.count == keys.count)
        for key in keys {
            #expect(searches.contains { $0.hasPrefix(key.lowercased() + " ") }, "\(key) whole in data-search")
        }

        // One script and one style, each allowed by its SHA-256 in the page's policy.
        let scripts = tags.filter { $0.name == "script" }, styles = tags.filter { $0.name == "style" }
        #expect(scripts.count == 1 && styles.count == 1)
        let policy = try #require(tags.first { $0.attribute("http-equiv") == "Content-Security-Policy" }?.attribute("content"))
        #expect(policy.contains("default-src 'none'"))
        #expect(!policy.contains("unsafe-inline"))
        let scriptHash = try await Self.sha256Base64(scripts.first?.rawText ?? "")
        let styleHash = try await Self.sha256Base64(styles.first?.rawText ?? "")
        #expect(policy.contains("script-src 'sha256-\(scriptHash)'"), "\(policy)")
        #expect(policy.contains("style-src 'sha256-\(styleHash)'"), "\(policy)")

        // Raster images may be opened; the SVG is shown as the pixels of a preview the decoder made
        // (its own file neither linked nor loaded, its script never run); the unknown bytes, which
        // have no preview, through <img> only.
        let links = tags.filter { $0.name == "a" }.compactMap { $0.attribute("href") }
        #expect(links.count == pngKeys.count && links.allSatisfy { $0.hasSuffix(".png") }, "\(links)")
        #expect(!tags.contains { ($0.attribute("src") ?? $0.attribute("href") ?? "").hasSuffix(".svg") })
        let sources = tags.filter { $0.name == "img" }.compactMap { $0.attribute("src") }
        #expect(sources.count == keys.count)
        #expect(sources.filter { $0.hasSuffix(".png") || $0.hasSuffix(".jpeg") }.count == keys.count - 1, "\(sources)")
        #expect(Set(sources).isDisjoint(with: links), "each raster card shows its preview and links its original")
    }

    /// SHA-256 of `text`'s UTF-8 bytes, base64, from coreutils' `sha256sum`: a second opinion
    /// on the hash cachectl computes itself.
    static func sha256Base64(_ text: String) async throws -> String {
        let scratch = TemporaryDirectory("sha256")
        let input = scratch.url.appendingPathComponent("input"), output = scratch.url.appendingPathComponent("output")
        try Data(text.utf8).write(to: input)
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [input.path]
        process.standardOutput = try FileHandle(forWritingTo: output)
        try await ProcessLauncher.launch(process)
        process.waitUntilExit()
        let hex = try String(contentsOf: output, encoding: .utf8).prefix(64)
        let bytes = stride(from: 0, to: hex.count, by: 2).compactMap { offset -> UInt8? in
            let start = hex.index(hex.startIndex, offsetBy: offset)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)
        }
        return Data(bytes).base64EncodedString()
    }
}
