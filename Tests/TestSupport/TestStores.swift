import CacheStorage
import Foundation

/// Stores filled with checkable payloads, for suites that damage, verify or inspect them.
public enum TestStores {
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
}
