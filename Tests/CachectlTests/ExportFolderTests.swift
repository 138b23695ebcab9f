import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Where `cachectl export` writes: a folder as private as the cache, and only a folder nobody
/// else can plant files or links in.
@Suite("export folder")
struct ExportFolderTests {
    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o7777 : nil
    }

    static func cache(_ name: String) async throws -> (TemporaryDirectory, TemporaryDirectory) {
        let cache = TemporaryDirectory("\(name)-cache")
        let images = try GeneratedImages.folder(count: 3)
        try await GeneratedImages.importInto(cache.url, from: images.url)
        return (cache, images)
    }

    @Test("a new export folder, its missing parents and every file it holds get the cache's private modes (0700, 0600), whatever the umask")
    func privateModes() async throws {
        let (cache, _) = try await Self.cache("export-modes")
        let parent = TemporaryDirectory("export-modes-target")
        let target = parent.url.appendingPathComponent("made/by/export", isDirectory: true)
        // A permissive umask in the child shows the modes are set, not inherited.
        let result = try await Cachectl.run(["export", "--path", cache.url.path, "--to", target.path, "--html"], umask: "002")
        #expect(result.status == 0, "\(result)")
        #expect(Self.mode(target.path) == 0o700)
        #expect(Self.mode(target.deletingLastPathComponent().path) == 0o700)
        #expect(Self.mode(parent.url.appendingPathComponent("made").path) == 0o700)
        let files = try FileManager.default.contentsOfDirectory(atPath: target.path)
        #expect(files.contains("manifest.json") && files.contains("index.html") && files.count > 5, "\(files)")
        for file in files {
            #expect(Self.mode(target.appendingPathComponent(file).path) == 0o600, "\(file)")
        }
    }

    @Test("an empty folder of another user is refused, and nothing is written into it")
    func foreignFolder() async throws {
        let (cache, _) = try await Self.cache("export-foreign")
        let parent = TemporaryDirectory("export-foreign-target")
        let target = parent.url.appendingPathComponent("theirs", isDirectory: true)
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: false)
        try #require(chmod(target.path, 0o755) == 0 && chown(target.path, 65534, 65534) == 0)
        let result = try await Cachectl.run(["export", "--path", cache.url.path, "--to", target.path])
        #expect(result.status != 0, "\(result)")
        #expect(result.errors.contains("belongs to another user"), "\(result)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: target.path).isEmpty)
    }

    @Test("an empty folder of this user that others may write in is refused, and nothing is written into it")
    func writableByOthers() async throws {
        let (cache, _) = try await Self.cache("export-writable")
        let parent = TemporaryDirectory("export-writable-target")
        for mode: mode_t in [0o777, 0o770, 0o1777] {
            let target = parent.url.appendingPathComponent("open-\(String(mode, radix: 8))", isDirectory: true)
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: false)
            try #require(chmod(target.path, mode) == 0)
            let result = try await Cachectl.run(["export", "--path", cache.url.path, "--to", target.path])
            #expect(result.status != 0, "\(result)")
            #expect(result.errors.contains("other than its owner may write"), "\(result)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: target.path).isEmpty)
        }
    }

    @Test("a symbolic link given as the export folder is refused, its target left empty")
    func linkedFolder() async throws {
        let (cache, _) = try await Self.cache("export-link")
        let parent = TemporaryDirectory("export-link-target")
        let real = parent.url.appendingPathComponent("real", isDirectory: true)
        try FileManager.default.createDirectory(at: real, withIntermediateDirectories: false)
        let link = parent.url.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: real)
        let result = try await Cachectl.run(["export", "--path", cache.url.path, "--to", link.path])
        #expect(result.status != 0, "\(result)")
        #expect(result.errors.contains("symbolic link"), "\(result)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: real.path).isEmpty)
    }
}
