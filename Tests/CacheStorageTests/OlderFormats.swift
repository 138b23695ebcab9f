import Foundation
import TestSupport
import Testing

@testable import CacheStorage

/// Stores as older versions wrote them, made with LMDB puts in the test (journaled, so the index
/// follows): what the upgrade tests open with the current code.
enum OlderFormats {
    /// Format 1: records under digests naming no number, blobs under digests. Format 2 (the blob
    /// log): records under digests naming their blobs' numbers (1, 2, … in order), blobs in the log.
    static func makeStore(in folder: URL, format: UInt32, entries: [(key: String, data: Data)]) throws {
        let store = try PersistentStore(directory: folder, configuration: TestStores.strict())
        defer { store.close() }
        let blobs = store.core.blobs
        try blobs.write { txn in
            var info = try #require(try txn.storeInfo(blobs.databases))
            var items: [JournalItem] = []
            for (offset, entry) in entries.enumerated() {
                let now = Date(millisecondsSince1970: Date().millisecondsSince1970)
                let metadata = EntryMetadata(
                    key: entry.key, byteCount: entry.data.count, checksum: entry.data.withUnsafeBytes { XXHash64.hash($0) },
                    storedAt: now, lastAccess: now, attributes: EntryAttributes())
                let digest = KeyDigest(key: entry.key)
                var record = EntryRecord.encode(metadata)
                let blob: BlobLocation
                if format == 1 {
                    blob = .digest(digest)
                } else {
                    blob = .log(UInt64(offset + 1))
                    record = EntryRecord.naming(blobNumber: UInt64(offset + 1), in: record)
                }
                try digest.withBytes { key in
                    try record.withUnsafeBytes { try txn.put(blobs.databases.records, key: key, value: $0) }
                }
                let database = try #require(blob.database(blobs.databases))
                try blob.withKey { key in try entry.data.withUnsafeBytes { try txn.put(database, key: key, value: $0) } }
                items.append(JournalItem(digest: digest))
            }
            try txn.appendJournal(items, info: &info, blobs.databases)
            info.format = format
            try txn.writeStoreInfo(info, blobs.databases)
        }
    }
}
