import Foundation
import TestSupport
import Testing

@testable import CacheStorage

#if canImport(Glibc)
import Glibc
#endif

@Suite("Read-only stores and file modes")
struct ReadOnlyAndModesTests {
    static func entry(_ number: Int, length: Int = 20_000) -> NewEntry {
        let key = TestPayload.key(prefix: "https://cdn.example.com/ro", number: number, length: length)
        return NewEntry(key: key, data: TestPayload.bytes(for: key)!)
    }

    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }

    /// Every file and folder under `folder`, with its mode.
    static func modes(under folder: URL) -> [String: mode_t] {
        var result: [String: mode_t] = [:]
        result["."] = mode(folder.path)
        let enumerator = FileManager.default.enumerator(atPath: folder.path)
        while let relative = enumerator?.nextObject() as? String {
            result[relative] = mode(folder.appendingPathComponent(relative).path)
        }
        return result
    }

    @Test("a new store is private: the folder 0700, every file 0600, LMDB's and SQLite's own files included")
    func privateByDefault() async throws {
        let parent = TemporaryDirectory("modes")
        let folder = parent.url.appendingPathComponent("cache")
        let store = try PersistentStore(directory: folder)
        try await store.put((0..<5).map { Self.entry($0) })
        try await store.flush()
        let modes = Self.modes(under: folder)
        for name in ["blobs/data.mdb", "blobs/lock.mdb", "index.sqlite", "index.sqlite-wal", "index.sqlite-shm",
            "open.lock", "users.lock", "flush.lock", "flush.state"]
        {
            #expect(modes[name] == 0o600, "\(name): \(String(modes[name] ?? 0, radix: 8))")
        }
        for (name, mode) in modes {
            let isFolder = name == "." || name == "blobs" || name.hasPrefix("quarantine")
            #expect(mode == (isFolder ? 0o700 : 0o600), "\(name) is \(String(mode, radix: 8))")
        }
        store.close()
    }

    @Test("group sharing gives 0770 folders and 0660 files whatever the umask; looser modes are tightened on open")
    func groupSharingAndTightening() async throws {
        let parent = TemporaryDirectory("modes-group")
        let folder = parent.url.appendingPathComponent("cache")
        var configuration = StoreConfiguration()
        configuration.sharing = .group
        let previous = umask(0o077)
        defer { umask(previous) }
        do {
            let store = try PersistentStore(directory: folder, configuration: configuration)
            try await store.put(Self.entry(1))
            try await store.flush()
            for (name, mode) in Self.modes(under: folder) {
                let isFolder = name == "." || name == "blobs"
                #expect(mode == (isFolder ? 0o770 : 0o660), "\(name) is \(String(mode, radix: 8))")
            }
            store.close()
        }
        // A store left world-readable by an older version is tightened when its owner opens it.
        chmod(folder.path, 0o755)
        chmod(folder.appendingPathComponent("blobs/data.mdb").path, 0o644)
        chmod(folder.appendingPathComponent("index.sqlite").path, 0o644)
        let store = try PersistentStore(directory: folder)
        defer { store.close() }
        #expect(Self.mode(folder.path) == 0o700)
        #expect(Self.mode(folder.appendingPathComponent("blobs/data.mdb").path) == 0o600)
        #expect(Self.mode(folder.appendingPathComponent("index.sqlite").path) == 0o600)
    }

    @Test("a planted symbolic link at quarantine/ is replaced, never followed, when a damaged store is moved aside")
    func quarantineLinkIsNotFollowed() async throws {
        let parent = TemporaryDirectory("quarantine-link")
        let victim = parent.url.appendingPathComponent("victim", isDirectory: true)
        try FileManager.default.createDirectory(at: victim, withIntermediateDirectories: true)
        for name in ["a", "b", "c", "d", "e"] {
            try Data(name.utf8).write(to: victim.appendingPathComponent(name))
        }
        let folder = parent.url.appendingPathComponent("cache", isDirectory: true)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("blobs"), withIntermediateDirectories: true)
        try Data(repeating: 0x41, count: 20_000).write(to: folder.appendingPathComponent("blobs/data.mdb"))
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("quarantine"), withDestinationURL: victim)
        let store = try PersistentStore(directory: folder)
        store.close()
        #expect(try FileManager.default.contentsOfDirectory(atPath: victim.path).sorted() == ["a", "b", "c", "d", "e"])
        var info = stat()
        #expect(lstat(folder.appendingPathComponent("quarantine").path, &info) == 0)
        #expect(info.st_mode & S_IFMT == S_IFDIR)
    }

    @Test("a read-only store reads, lists, counts and verifies; writes throw readOnly; nothing in the folder changes")
    func explicitReadOnly() async throws {
        let folder = TemporaryDirectory("readonly")
        let entries = (0..<8).map { Self.entry($0) }
        do {
            let store = try PersistentStore(directory: folder.url)
            try await store.put(entries)
            store.close()
        }
        let before = Self.modes(under: folder.url)
        var configuration = StoreConfiguration()
        configuration.access = .readOnly
        let store = try PersistentStore(directory: folder.url, configuration: configuration)
        defer { store.close() }
        for entry in entries { #expect(try store.get(entry.key)?.data == entry.data) }
        #expect(try store.entries().count == 8)
        #expect(try store.statistics().entries == 8)
        #expect(try store.statistics().writeStatus == .readOnly(reason: "opened read-only"))
        #expect(try await store.verify().isClean)
        let refused = await #expect(throws: StorageError.self) { try await store.put(Self.entry(99)) }
        guard case .readOnly? = refused else {
            Issue.record("expected readOnly, got \(String(describing: refused))")
            return
        }
        await #expect(throws: StorageError.self) { try await store.remove(entries[0].key) }
        await #expect(throws: StorageError.self) { _ = try await store.compact() }
        #expect(Self.modes(under: folder.url).keys.sorted() == before.keys.sorted())
    }

    @Test(
        "on a read-only mount a store opens read-only by itself, and a writer on the same folder is unaffected",
        .enabled(if: MountedFileSystem.isAvailable))
    func readOnlyMount() async throws {
        let folder = TemporaryDirectory("readonly-mount")
        let writer = try PersistentStore(directory: folder.url)
        defer { writer.close() }
        let entries = (0..<10).map { Self.entry($0) }
        try await writer.put(entries)
        try await writer.flush()
        let view = try MountedFileSystem.readOnlyView(of: folder.url)
        let reader = try PersistentStore(directory: view.url)
        defer { reader.close() }
        #expect(try reader.statistics().writeStatus == .readOnly(reason: "the cache folder cannot be written"))
        for entry in entries { #expect(try reader.get(entry.key)?.data == entry.data) }
        #expect(try reader.entries().count == 10)
        #expect(try await reader.verify().isClean)
        await #expect(throws: StorageError.self) { try await reader.put(Self.entry(50)) }
        // The writer goes on while the read-only store is open.
        let more = (10..<20).map { Self.entry($0) }
        try await writer.put(more)
        try await writer.remove(entries[0].key)
        #expect(try writer.entries().count == 19)
        #expect(try await writer.verify().isClean)
        for entry in more { #expect(try reader.get(entry.key)?.data == entry.data) }
    }
}

extension ReadOnlyAndModesTests {
    static let storeNames = [
        "blobs", "blobs/data.mdb", "blobs/lock.mdb", "index.sqlite", "index.sqlite-wal", "index.sqlite-shm",
        "open.lock", "users.lock", "flush.lock", "flush.state", "space.reserve", "quarantine",
    ]

    @Test("a symbolic link planted at any name the store uses is never followed", arguments: storeNames)
    func plantedLinks(name: String) async throws {
        let parent = TemporaryDirectory("planted-link")
        let victimFolder = parent.url.appendingPathComponent("victim", isDirectory: true)
        try FileManager.default.createDirectory(at: victimFolder, withIntermediateDirectories: true)
        let victimFile = victimFolder.appendingPathComponent("precious")
        try Data("precious".utf8).write(to: victimFile)
        chmod(victimFile.path, 0o644)
        let folder = parent.url.appendingPathComponent("cache", isDirectory: true)
        // A store with entries first (so the names exist as a real store would have them), then the link.
        do {
            let store = try PersistentStore(directory: folder)
            try await store.put((0..<3).map { Self.entry($0) })
            store.close()
        }
        let planted = folder.appendingPathComponent(name)
        try? FileManager.default.removeItem(at: planted)
        let target = name == "blobs" || name == "quarantine" ? victimFolder : victimFile
        try FileManager.default.createSymbolicLink(at: planted, withDestinationURL: target)

        let store = try PersistentStore(directory: folder)
        try await store.put(Self.entry(10))
        #expect(try store.get(Self.entry(10).key)?.data == Self.entry(10).data)
        _ = try await store.verify(repair: true)
        try await store.flush()
        store.close()

        #expect(try String(contentsOf: victimFile, encoding: .utf8) == "precious")
        #expect(Self.mode(victimFile.path) == 0o644)
        #expect(try FileManager.default.contentsOfDirectory(atPath: victimFolder.path) == ["precious"])
    }
}
