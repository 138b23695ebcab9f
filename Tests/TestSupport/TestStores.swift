import CacheStorage
import Foundation

/// Stores filled with checkable payloads, for suites that damage, verify or inspect them.
public enum TestStores {
    /// The default configuration, but damage throws instead of being moved aside: for tests that
    /// must see damage rather than have it repaired silently.
    public static func strict() -> StoreConfiguration {
        var configuration = StoreConfiguration()
        configuration.recovery = .throwError
        return configuration
    }

    /// The key of payload `number` under `prefix` (lengths vary with the number).
    public static func key(prefix: String, number: Int, baseLength: Int) -> String {
        TestPayload.key(prefix: prefix, number: number, length: baseLength + number)
    }

    /// A store in `folder` holding `count` payload entries keyed by `key(prefix:number:baseLength:)`.
    public static func populated(
        _ folder: TemporaryDirectory, prefix: String, baseLength: Int, count: Int = 20
    ) async throws -> PersistentStore {
        let store = try PersistentStore(directory: folder.url)
        try await store.put((0..<count).map { number in
            let key = key(prefix: prefix, number: number, baseLength: baseLength)
            return NewEntry(key: key, data: TestPayload.bytes(for: key)!)
        })
        return store
    }

    /// What opening moved into the store's `quarantine/`: the blob store (`blobs`, `*.mdb`), the
    /// index (`index.sqlite*`), and whether anything at all.
    public static func quarantined(in directory: URL) -> (blobs: Bool, index: Bool, anything: Bool) {
        let quarantine = directory.appendingPathComponent("quarantine").path
        let names = (FileManager.default.enumerator(atPath: quarantine)?.allObjects as? [String] ?? [])
            .map { URL(fileURLWithPath: $0).lastPathComponent }
        return (
            names.contains { $0 == "blobs" || $0.hasSuffix(".mdb") }, names.contains { $0.hasPrefix("index.sqlite") },
            !names.isEmpty
        )
    }
}
