import Foundation
import TestSupport
import Testing

@testable import CacheStorage

/// Trimming the journal deletes its leading items along one cursor (`LMDBCursor.deleteLeading`):
/// every item up to the sequence goes, across page boundaries, and nothing after it. Appending puts
/// items on the last page without a search unless a key there is not below the next sequence.
@Suite("Journal appending and trimming")
struct JournalTrimTests {
    /// The journal's keys, as sequences (other keys as nil).
    static func journalKeys(_ store: PersistentStore) throws -> [UInt64?] {
        let blobs = store.core.blobs
        return try blobs.read { txn in
            var keys: [UInt64?] = []
            try txn.forEach(blobs.databases.journal) { key, _ in
                keys.append(BlobLocation.number(fromKey: key))
                return true
            }
            return keys
        }
    }

    @Test("trimming through a sequence deletes exactly the items up to it, over many pages, and passes over other keys")
    func trimsExactlyThrough() throws {
        let folder = TemporaryDirectory()
        let store = try PersistentStore(directory: folder.url, configuration: TestStores.strict())
        defer { store.close() }
        let blobs = store.core.blobs
        // No put runs in this store, so nothing but this test trims its journal.
        #expect(try Self.journalKeys(store).isEmpty)
        let first = try blobs.write { txn -> UInt64 in
            var info = try #require(try txn.storeInfo(blobs.databases))
            let first = info.nextSequence
            // 5,000 items of about 40 bytes: dozens of leaf pages.
            let items = (0..<5_000).map { JournalItem(digest: KeyDigest(key: "k\($0)"), rowsLeft: [Int64($0)]) }
            try txn.appendJournal(items, info: &info, blobs.databases)
            // A key of another length, which trimming passes over (it sorts before every 8-byte one).
            try [UInt8](repeating: 0, count: 4).withUnsafeBytes { key in
                try [UInt8](repeating: 1, count: 16).withUnsafeBytes { try txn.put(blobs.databases.journal, key: key, value: $0) }
            }
            try txn.writeStoreInfo(info, blobs.databases)
            return first
        }
        for through in [first + 2, first + 1_999, first + 4_998] {
            try blobs.write { txn in
                var info = try #require(try txn.storeInfo(blobs.databases))
                try txn.trimJournal(through: through, info: &info, blobs.databases)
                #expect(info.trimmedThrough == through)
                try txn.writeStoreInfo(info, blobs.databases)
            }
            let keys = try Self.journalKeys(store)
            #expect(keys.filter { $0 == nil }.count == 1, "the other key stays")
            let sequences = keys.compactMap { $0 }
            #expect(sequences == Array(through + 1..<first + 5_000), "through \(through - first)")
        }
    }

    @Test("items are appended after a store info rewritten from scratch, whose next sequence is behind the journal's keys")
    func appendsBehindExistingKeys() throws {
        let folder = TemporaryDirectory()
        let store = try PersistentStore(directory: folder.url, configuration: TestStores.strict())
        defer { store.close() }
        let blobs = store.core.blobs
        let items = (0..<300).map { JournalItem(digest: KeyDigest(key: "k\($0)")) }
        try blobs.write { txn in
            var info = try #require(try txn.storeInfo(blobs.databases))
            let first = info.nextSequence
            try txn.appendJournal(items, info: &info, blobs.databases)
            #expect(info.nextSequence == first + 300)
            // Behind the last 100 keys: appending at the end would be refused there.
            info.nextSequence = first + 200
            try txn.appendJournal(items.prefix(150), info: &info, blobs.databases)
            #expect(info.nextSequence == first + 350)
            try txn.writeStoreInfo(info, blobs.databases)
        }
        let sequences = try Self.journalKeys(store).compactMap { $0 }
        #expect(sequences.count == 350)
        #expect(sequences.first.map { sequences == Array($0..<$0 + 350) } == true)
    }
}
