import Foundation
import Testing

@testable import CacheStorage

/// Damage done to an entry's bytes behind the store's back, wherever they live: after the record in
/// the record log (small entries), or in the blob log.
enum EntryDamage {
    /// Replaces `key`'s bytes with what `change` makes of them; bytes changed to nothing are
    /// removed (a record whose bytes followed it keeps saying they do).
    static func change(_ key: String, in store: PersistentStore, _ change: (inout [UInt8]) -> Void) throws {
        let blobs = store.core.blobs
        let databases = blobs.databases
        try blobs.write { txn in
            let digest = KeyDigest(key: key)
            let stored = try #require(try txn.record(of: digest, databases))
            let location = try #require(BlobLocation(record: stored.bytes))
            var bytes = try #require(try txn.withBytes(of: stored, at: location, databases) { $0.map(Array.init) })
            change(&bytes)
            guard case let .withRecord(number) = location else {
                let database = location.database(databases)
                if bytes.isEmpty {
                    #expect(try txn.deleteBlob(at: location, databases))
                } else {
                    try location.withKey { key in try bytes.withUnsafeBytes { try txn.put(database, key: key, value: $0) } }
                }
                return
            }
            let record = Array(stored.bytes)
            try bytes.withUnsafeBytes { try txn.replaceRecord(record, of: digest, at: number, followedBy: $0, databases) }
        }
    }

    /// Whether `key`'s bytes follow its record in the record log.
    static func bytesFollowRecord(_ key: String, in store: PersistentStore) throws -> Bool {
        let blobs = store.core.blobs
        return try blobs.read { txn in
            let digest = KeyDigest(key: key)
            guard let stored = try txn.record(of: digest, blobs.databases) else { return false }
            if case .withRecord = BlobLocation(record: stored.bytes) { return true }
            return false
        }
    }
}
