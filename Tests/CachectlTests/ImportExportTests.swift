import CacheStorage
import Foundation
import ImageFormats
import LoopbackOrigin
import TestSupport
import Testing

@Suite("import and export")
struct ImportExportTests {
    @Test(
        "import → export gives byte-identical files whose formats and pixel sizes match the corpus manifest",
        .enabled(if: SharedFixtures.isAvailable))
    func roundTrip() async throws {
        let cache = TemporaryDirectory("roundtrip-cache")
        let export = TemporaryDirectory("roundtrip-export")
        let imported = try await Corpus.importInto(cache.url)
        #expect(imported.status == 0, "\(imported)")
        let rows = try Corpus.rows(under: "real/")
        #expect(try imported.json(ImportJSON.self).imported == rows.count)

        let exported = try await Cachectl.run(["export", "--path", cache.url.path, "--to", export.url.path, "--html"])
        #expect(exported.status == 0, "\(exported)")
        #expect(exported.errors.isEmpty, "no progress bar when stderr is not a terminal")
        let manifest = try JSONDecoder.snakeCase.decode(
            [ManifestRow].self, from: Data(contentsOf: export.url.appendingPathComponent("manifest.json")))
        let byKey = Dictionary(uniqueKeysWithValues: manifest.map { ($0.key, $0) })
        #expect(manifest.count == rows.count)
        for row in rows {
            let key = "\(Corpus.baseURL)/\(row.path)"
            let entry = try #require(byKey[key], "\(key) missing from the manifest")
            let original = try Data(contentsOf: Corpus.folder.appendingPathComponent(row.path))
            let file = export.url.appendingPathComponent(entry.file)
            #expect(try Data(contentsOf: file) == original, "\(row.path)")
            #expect(entry.bytes == original.count)
            #expect(entry.format == row.cachectlFormat, "\(row.path)")
            #expect(entry.width == row.width && entry.height == row.height, "\(row.path): \(entry.width ?? -1)x\(entry.height ?? -1)")
            #expect(entry.storedAt != nil && entry.lastAccess != nil && entry.expires != nil)
            let expectedExtension = row.cachectlFormat == "jpeg" ? "jpg" : row.cachectlFormat
            #expect(file.pathExtension == expectedExtension, "\(entry.file)")
        }
        let gallery = try String(contentsOf: export.url.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(gallery.components(separatedBy: "loading=\"lazy\"").count == rows.count + 1)
        // Every image has a preview any browser shows, written beside the files (nothing else
        // is), named by the gallery in its place.
        let written = Set(try FileManager.default.contentsOfDirectory(atPath: export.url.path))
        let previews = written.subtracting(manifest.map(\.file) + ["manifest.json", "index.html"])
        #expect(previews.count == rows.count, "\(previews.count) previews for \(rows.count) images")
        for preview in previews {
            let info = try ImageValidator().validate(Data(contentsOf: export.url.appendingPathComponent(preview)))
            #expect([.jpeg, .png].contains(info.format) && max(info.pixelWidth, info.pixelHeight) <= 340, "\(preview): \(info)")
            #expect(gallery.contains("src=\"\(preview)\""), "\(preview) is not shown")
        }
        for external in ["src=\"http", "href=\"http", "<link", "@import", "url(http"] {
            #expect(!gallery.contains(external), "the gallery must not load anything from the network")
        }
    }

    @Test("export --html of a cache holding images crafted against decoders finishes: every file exported, previews only for the images that decode")
    func hostileGallery() async throws {
        let folder = TemporaryDirectory("hostile-import")
        let cache = TemporaryDirectory("hostile-cache")
        let export = TemporaryDirectory("hostile-export")
        defer { withExtendedLifetime((folder, cache, export)) {} }
        let svg = { (body: String) in
            Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">\#(body)</svg>"#.utf8)
        }
        let files: [String: Data] = [
            // librsvg panics on it, which would end any process that rendered it.
            "panic.svg": svg(#"<filter id="f"><feConvolveMatrix order="21" kernelMatrix=""#
                + Array(repeating: "1", count: 441).joined(separator: " ")
                + #""/></filter><rect width="100" height="100" filter="url(#f)"/>"#),
            // Minutes of processor time in librsvg.
            "turbulence.svg": svg(#"<filter id="f"><feTurbulence baseFrequency="0.01" numOctaves="4000"/></filter><rect width="100" height="100" filter="url(#f)"/>"#),
            "good.png": PNGEncoder.encode(width: 40, height: 30) { x, _ in (UInt8(x * 6), 90, 200) },
        ]
        for (name, bytes) in files { try bytes.write(to: folder.url.appendingPathComponent(name)) }
        let imported = try await Cachectl.run(["import", folder.url.path, "--path", cache.url.path, "--base-url", "https://x.test", "--json"])
        #expect(imported.status == 0, "\(imported)")

        let exported = try await Cachectl.run(["export", "--path", cache.url.path, "--to", export.url.path, "--html", "--json"])
        #expect(exported.status == 0, "\(exported)")
        let manifest = try JSONDecoder.snakeCase.decode(
            [ManifestRow].self, from: Data(contentsOf: export.url.appendingPathComponent("manifest.json")))
        #expect(manifest.count == 3)
        let written = Set(try FileManager.default.contentsOfDirectory(atPath: export.url.path))
        let previews = written.subtracting(manifest.map(\.file) + ["manifest.json", "index.html"])
        #expect(previews.count == 1, "only the good image has a preview: \(previews.sorted())")
        #expect(previews.allSatisfy { $0.hasPrefix("x.test_good") }, "\(previews.sorted())")
    }

    @Test("an export imported into a new cache restores the keys, validators, expiry and bytes")
    func exportReimport() async throws {
        let first = TemporaryDirectory("reimport-first")
        let export = TemporaryDirectory("reimport-export")
        let second = TemporaryDirectory("reimport-second")
        let images = try GeneratedImages.folder(count: 10)
        try await GeneratedImages.importInto(first.url, from: images.url, maxAge: "2h")
        #expect(try await Cachectl.run(["export", "--path", first.url.path, "--to", export.url.path]).status == 0)
        let reimport = try await Cachectl.run(["import", export.url.path, "--path", second.url.path, "--json"])
        #expect(reimport.status == 0, "\(reimport)")
        #expect(try reimport.json(ImportJSON.self).manifest)
        let before = try await Cachectl.run(["list", "--path", first.url.path, "--json"]).json([EntryRow].self)
        let after = try await Cachectl.run(["list", "--path", second.url.path, "--json"]).json([EntryRow].self)
        #expect(before.count == 10)
        #expect(before == after)
        let key = GeneratedImages.key(3)
        let shown = try await Cachectl.run(["show", key, "--path", second.url.path])
        #expect(shown.output.contains("max-age=7200"), "the stored response came back: \(shown)")
    }

    @Test("an export is not a read: last accesses and the hit counter stay, and the manifest gives the recorded ones")
    func exportIsNotARead() async throws {
        let cache = TemporaryDirectory("export-unread-cache")
        let export = TemporaryDirectory("export-unread-export")
        let images = try GeneratedImages.folder(count: 10)
        try await GeneratedImages.importInto(cache.url, from: images.url)
        let store = try PersistentStore(directory: cache.url)
        defer { store.close() }
        let before = Dictionary(uniqueKeysWithValues: try store.entries().map { ($0.key, $0.lastAccess) })
        let hitsBefore = try store.statistics().hits
        #expect(!before.isEmpty)
        // Past the manifest's one-second resolution, so a read during the export would show.
        try await Task.sleep(for: .milliseconds(1_500))

        let exported = try await Cachectl.run(["export", "--path", cache.url.path, "--to", export.url.path])
        #expect(exported.status == 0, "\(exported)")

        let after = Dictionary(uniqueKeysWithValues: try store.entries().map { ($0.key, $0.lastAccess) })
        #expect(after == before, "the export moved last accesses")
        #expect(try store.statistics().hits == hitsBefore)
        let manifest = try JSONDecoder.snakeCase.decode(
            [ManifestRow].self, from: Data(contentsOf: export.url.appendingPathComponent("manifest.json")))
        #expect(manifest.count == before.count)
        for row in manifest {
            let recorded = try #require(before[row.key])
            let written = try #require(row.lastAccess)
            // The manifest keeps whole seconds: the recorded time, cut to the second.
            let lag = recorded.timeIntervalSince(written)
            #expect(lag >= 0 && lag < 1, "\(row.key): \(written) vs \(recorded)")
        }
    }

    @Test(
        "import refuses every must-reject file of corpus/bad found by sniff, header, policy or structure, and keeps going",
        .enabled(if: SharedFixtures.isAvailable))
    func badCorpus() async throws {
        let cache = TemporaryDirectory("bad-import")
        let result = try await Corpus.importInto(cache.url, subfolder: "bad")
        #expect(result.status == 1, "refused files are problems found: \(result.errors)")
        let report = try result.json(ImportJSON.self)
        let refused = Dictionary(report.refused.map { ("bad/" + $0.file, $0) }) { first, _ in first }
        let rows = try Corpus.rows(under: "bad/")
        let mustReject = rows.filter {
            $0.expected == "must-reject" && ["sniff", "header", "policy", "structure"].contains($0.detectAt)
                && !$0.path.hasPrefix("bad/quirky/")
        }
        #expect(mustReject.count > 100)
        for row in mustReject {
            let refusal = refused[row.path]
            #expect(refusal != nil, "\(row.path) was imported")
            #expect(refusal?.reason.isEmpty == false)
        }
        #expect(report.imported + report.refused.count == rows.count, "every file was tried")
        let stats = try await Cachectl.run(["stats", "--path", cache.url.path, "--json"]).json(StatsJSON.self)
        #expect(stats.entries == report.imported)
        #expect(result.output.contains("\"stage\" : \"sniff\""))
    }

    @Test("a manifest that points outside its folder is refused, never read")
    func escapingManifest() async throws {
        let parent = TemporaryDirectory("escaping-manifest")
        let folder = parent.url.appendingPathComponent("export")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let png = GeneratedImages.png(seed: 4)
        try png.write(to: parent.url.appendingPathComponent("outside.png"))
        try png.write(to: folder.appendingPathComponent("inside.png"))
        let manifest = """
            [{"key": "a", "file": "../outside.png", "bytes": 1},
             {"key": "b", "file": "/etc/hostname", "bytes": 1},
             {"key": "c", "file": "inside.png", "bytes": \(png.count)}]
            """
        try Data(manifest.utf8).write(to: folder.appendingPathComponent("manifest.json"))
        let cache = TemporaryDirectory("escaping-cache")
        let result = try await Cachectl.run(["import", folder.path, "--path", cache.url.path, "--json"])
        #expect(result.status == 1)
        let report = try result.json(ImportJSON.self)
        #expect(report.imported == 1)
        #expect(Set(report.refused.map(\.file)) == ["../outside.png", "/etc/hostname"])
        let keys = try await Cachectl.run(["list", "--path", cache.url.path, "--json"]).json([EntryRow].self).map(\.key)
        #expect(keys == ["c"])
    }
}

extension ImportExportTests {
    @Test("a FIFO in the folder or named in a manifest is refused unopened, links are followed only inside, and the import finishes")
    func nonRegularFiles() async throws {
        let parent = TemporaryDirectory("fifo-import")
        let folder = parent.url.appendingPathComponent("images")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("sub"), withIntermediateDirectories: true)
        let png = GeneratedImages.png(seed: 4)
        try png.write(to: folder.appendingPathComponent("real.png"))
        try png.write(to: parent.url.appendingPathComponent("outside.png"))
        let fifo = folder.appendingPathComponent("sub/pipe.png")
        #expect(mkfifo(fifo.path, 0o644) == 0)
        let fileManager = FileManager.default
        try fileManager.createSymbolicLink(atPath: folder.appendingPathComponent("link-in.png").path, withDestinationPath: "real.png")
        try fileManager.createSymbolicLink(atPath: folder.appendingPathComponent("link-out.png").path, withDestinationPath: "../outside.png")
        try fileManager.createSymbolicLink(atPath: folder.appendingPathComponent("link-pipe.png").path, withDestinationPath: "sub/pipe.png")
        // Reached only if an import blocks on the FIFO: a writer that opens and closes it gives the
        // reader end of file, so a failing run ends and reports instead of hanging the suite.
        let release = Task.detached {
            try await Task.sleep(for: .seconds(30))
            let descriptor = open(fifo.path, O_WRONLY | O_NONBLOCK)
            if descriptor >= 0 { close(descriptor) }
        }
        defer { release.cancel() }

        let cache = TemporaryDirectory("fifo-import-cache")
        let result = try await Cachectl.run(["import", folder.path, "--path", cache.url.path, "--base-url", "https://x.test", "--json"])
        #expect(result.status == 1, "refused files are problems found: \(result)")
        let report = try result.json(ImportJSON.self)
        #expect(report.imported == 2, "real.png and the link to it")
        let refused = Dictionary(uniqueKeysWithValues: report.refused.map { ($0.file, $0) })
        #expect(Set(refused.keys) == ["sub/pipe.png", "link-out.png", "link-pipe.png"], "\(report.refused)")
        #expect(refused["sub/pipe.png"]?.reason.contains("FIFO") == true, "\(refused)")
        #expect(refused["sub/pipe.png"]?.stage == "read")
        #expect(refused["link-pipe.png"]?.reason.contains("FIFO") == true, "\(refused)")
        #expect(refused["link-out.png"]?.reason.contains("outside the folder") == true, "\(refused)")

        // The same FIFO named in a manifest.
        let manifest = """
            [{"key": "a", "file": "sub/pipe.png", "bytes": 1},
             {"key": "b", "file": "link-out.png", "bytes": 1},
             {"key": "c", "file": "real.png", "bytes": \(png.count)}]
            """
        try Data(manifest.utf8).write(to: folder.appendingPathComponent("manifest.json"))
        let restoredCache = TemporaryDirectory("fifo-manifest-cache")
        let restored = try await Cachectl.run(["import", folder.path, "--path", restoredCache.url.path, "--json"])
        #expect(restored.status == 1, "\(restored)")
        let restoredReport = try restored.json(ImportJSON.self)
        #expect(restoredReport.imported == 1)
        #expect(restoredReport.refused.first { $0.file == "sub/pipe.png" }?.reason.contains("FIFO") == true, "\(restoredReport.refused)")
        #expect(restoredReport.refused.first { $0.file == "link-out.png" }?.reason.contains("outside the folder") == true)
    }
}

extension JSONDecoder {
    /// A decoder for cachectl's JSON: snake_case keys, ISO 8601 dates.
    static var snakeCase: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
