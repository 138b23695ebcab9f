import CacheStorage
import Foundation
import ImageCache
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
}
