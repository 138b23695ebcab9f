import CacheStorage
import Foundation
import HTTPCaching
import ImageCache
import Synchronization
import TestSupport
import Testing

/// The HTTP cache's fingerprint key, `vary-fingerprint.key` beside the store: shared exactly as
/// the store is, and never read or written through a link planted in its place.
@Suite("Fingerprint key file")
struct FingerprintKeyFileTests {
    static func mode(_ url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions]) as? Int) ?? -1
    }

    @Test("the key follows the store's sharing: 0660 in a group store, 0600 once it is reopened as private, same key")
    func followsSharing() throws {
        let folder = TemporaryDirectory("fingerprint-key")
        let keyFile = folder.url.appendingPathComponent("vary-fingerprint.key")
        var shared = StoreConfiguration()
        shared.sharing = .group
        let groupStore = try PersistentStore(directory: folder.url, configuration: shared)
        _ = HTTPCache(configuration: HTTPCache.Configuration(store: groupStore))
        groupStore.close()
        #expect(Self.mode(keyFile) == 0o660)
        let key = try Data(contentsOf: keyFile)

        let privateStore = try PersistentStore(directory: folder.url)
        _ = HTTPCache(configuration: HTTPCache.Configuration(store: privateStore))
        privateStore.close()
        #expect(Self.mode(keyFile) == 0o600, "the key kept the group's permissions")
        #expect(try Data(contentsOf: keyFile) == key, "the key changed")
    }

    @Test("a link planted at the key's name is neither followed nor its target touched")
    func plantedLink() throws {
        let folder = TemporaryDirectory("fingerprint-link")
        let victim = folder.url.appendingPathComponent("victim")
        try Data("not a key".utf8).write(to: victim)
        chmod(victim.path, 0o644)
        let store = try PersistentStore(directory: folder.url.appendingPathComponent("store"))
        defer { store.close() }
        try FileManager.default.createSymbolicLink(
            at: store.directory.appendingPathComponent("vary-fingerprint.key"), withDestinationURL: victim)
        _ = HTTPCache(configuration: HTTPCache.Configuration(store: store))
        #expect(try Data(contentsOf: victim) == Data("not a key".utf8))
        #expect(Self.mode(victim) == 0o644)
    }

    @Test("a FIFO at the key's name is refused at once: the cache starts without blocking and the FIFO is not read")
    func plantedFIFO() async throws {
        let folder = TemporaryDirectory("fingerprint-fifo")
        let store = try PersistentStore(directory: folder.url.appendingPathComponent("store"))
        defer { store.close() }
        let keyFile = store.directory.appendingPathComponent("vary-fingerprint.key").path
        try #require(mkfifo(keyFile, 0o600) == 0)
        // Off the pool, with a deadline: a regression hangs one thread, not the run.
        let started = await OffPoolRun.result(within: 60) {
            _ = HTTPCache(configuration: HTTPCache.Configuration(store: store))
            return true
        }
        #expect(started == true, "starting the HTTP cache hung on a FIFO at its key's name")
        var info = stat()
        #expect(lstat(keyFile, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
    }

    @Test("a link swapped in and out at the key's name while caches start never gets the mode of its target changed")
    func chmodRace() async throws {
        let folder = TemporaryDirectory("fingerprint-race")
        let victim = folder.url.appendingPathComponent("victim").path
        try Data("a file of the opening user".utf8).write(to: URL(fileURLWithPath: victim))
        try #require(chmod(victim, 0o644) == 0)
        let store = try PersistentStore(directory: folder.url.appendingPathComponent("store"))
        defer { store.close() }
        let name = store.directory.appendingPathComponent("vary-fingerprint.key").path
        let staged = folder.url.appendingPathComponent("staged").path
        let starts = 20_000
        let outcome = await OffPoolRun.result(within: 600) { () -> (attempts: Int, victimMode: mode_t?) in
            // A key-sized group-readable file (whose mode a private store's cache takes away),
            // then a link to the victim in its place.
            LinkSwapRace.run(
                name: name, staged: staged, victim: victim, fileMode: 0o640, contents: [UInt8](repeating: 1, count: 32),
                attempts: starts
            ) {
                _ = HTTPCache(configuration: HTTPCache.Configuration(store: store))
            }
        }
        let result = try #require(outcome, "the starts did not finish")
        #expect(result.victimMode == 0o644, "the victim's mode changed after \(result.attempts) starts")
    }
}
