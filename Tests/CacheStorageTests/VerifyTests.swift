import Foundation
import TestSupport
import Testing

@testable import CacheStorage

@Suite("Verify, repair and compact")
struct VerifyTests {
    static func key(_ number: Int) -> String { TestStores.key(prefix: "v", number: number, baseLength: 4000) }

    static func populated(_ folder: TemporaryDirectory, count: Int = 20) async throws -> PersistentStore {
        try await TestStores.populated(folder, prefix: "v", baseLength: 4000, count: count)
    }

    @Test("verify finds a blob deleted behind the store's back and a flipped byte; repair cleans up")
    func findsAndRepairs() async throws {
        let folder = TemporaryDirectory()
        let store = try await Self.populated(folder)
        #expect(try await store.verify().isClean)
        // Small entries: their bytes follow their records (the blob log's are damaged in `MaintenanceTests`).
        #expect(try EntryDamage.bytesFollowRecord(Self.key(3), in: store))
        try EntryDamage.change(Self.key(3), in: store) { $0 = [] }
        try EntryDamage.change(Self.key(5), in: store) { $0[100] ^= 0x01 }
        let report = try await store.verify()
        #expect(report.problems.contains(.missingBlob(key: Self.key(3))))
        #expect(report.problems.contains(.checksumMismatch(key: Self.key(5))))
        #expect(report.problems.count == 2)
        #expect(!report.repaired)
        let repaired = try await store.verify(repair: true)
        #expect(repaired.repaired)
        let after = try await store.verify()
        #expect(after.isClean, "\(after.problems)")
        #expect(try store.get(Self.key(3)) == nil)
        #expect(try store.get(Self.key(5)) == nil)
        #expect(try store.statistics().entries == 18)
        for number in [0, 1, 2, 4, 6, 19] { #expect(try store.get(Self.key(number))?.data == TestPayload.bytes(for: Self.key(number))) }
    }

    @Test("a read that finds a record without its blob is a miss, and the record is removed")
    func missingBlobIsAMiss() async throws {
        let folder = TemporaryDirectory()
        let store = try await Self.populated(folder)
        try EntryDamage.change(Self.key(1), in: store) { $0 = [] }
        // Cut short, not gone: the record says 4,002 bytes follow it, and 10 do.
        try EntryDamage.change(Self.key(2), in: store) { $0 = Array($0.prefix(10)) }
        #expect(try store.get(Self.key(1)) == nil)
        #expect(try store.get(Self.key(2)) == nil)
        #expect(try store.get(Self.key(3))?.data == TestPayload.bytes(for: Self.key(3)))
        try await store.flush()
        #expect(try store.metadata(for: Self.key(1)) == nil)
        #expect(try store.metadata(for: Self.key(2)) == nil)
        #expect(try await store.verify().isClean)
    }

    @Test("a read whose bytes their checksum refutes is a miss, counted and removed: get, derived get and peek alike")
    func checksumRefutedReadIsAMiss() async throws {
        let folder = TemporaryDirectory()
        let store = try await Self.populated(folder)
        let source = Self.key(7)
        let derived = NewEntry(
            key: source + "#small", data: Data(repeating: 9, count: 300),
            source: EntrySource(key: source, bytes: TestPayload.bytes(for: source)!))
        try await store.put(derived)
        // Same length, one bit off: only the checksum can tell.
        for key in [Self.key(1), Self.key(2), derived.key] { try EntryDamage.change(key, in: store) { $0[$0.count / 2] ^= 0x10 } }
        #expect(try store.get(Self.key(1)) == nil)
        #expect(try store.peekReportingDamage(Self.key(2)) == .damaged)
        #expect(try store.get(derived.key, derivedFrom: source) == nil)
        #expect(try store.peekReportingDamage("absent") == .absent)
        #expect(try store.peekReportingDamage(Self.key(3)).entry?.data == TestPayload.bytes(for: Self.key(3)))
        try await store.flush()
        for key in [Self.key(1), Self.key(2), derived.key] { #expect(try store.metadata(for: key) == nil, "\(key) kept") }
        let stats = try store.statistics()
        #expect(stats.damagedReadsRefused == 3)
        #expect(stats.misses == 2)
        #expect(try await store.verify().isClean)
        // The next load fetches again and stores the bytes anew.
        let refetched = TestPayload.bytes(for: Self.key(1))!
        try await store.put(NewEntry(key: Self.key(1), data: refetched))
        #expect(try store.get(Self.key(1))?.data == refetched)
    }

    @Test("a blob is hashed once per open: damage after its first read is caught by every read after a reopen")
    func verifiedOncePerOpen() async throws {
        let folder = TemporaryDirectory()
        let store = try await Self.populated(folder)
        let key = Self.key(4)
        #expect(try store.get(key)?.data == TestPayload.bytes(for: key))
        try EntryDamage.change(key, in: store) { $0[$0.count / 2] ^= 0x10 }
        // Remembered as verified in this process: the check this open made once is not repeated.
        #expect(try store.get(key) != nil)
        store.close()
        let reopened = try PersistentStore(directory: folder.url)
        defer { reopened.close() }
        #expect(try reopened.get(key) == nil)
        #expect(try reopened.get(Self.key(5))?.data == TestPayload.bytes(for: Self.key(5)))
    }

    @Test("verify sees an index row the blob store lost and an entry the index lacks")
    func indexDisagreements() async throws {
        let folder = TemporaryDirectory()
        let store = try await Self.populated(folder)
        let index = store.core.index
        try index.writer.transaction {
            let digest = KeyDigest(key: Self.key(2))
            let stored = try #require(try store.metadata(for: Self.key(2)))
            #expect(try index.delete(row: IndexRowKey(stored, digest: digest)).entries == -1)
            let metadata = EntryMetadata(
                key: "ghost", byteCount: 10, checksum: 1, storedAt: Date(), lastAccess: Date(), attributes: EntryAttributes())
            try index.upsert(digest: KeyDigest(key: "ghost"), metadata: metadata, blobNumber: nil)
        }
        let report = try await store.verify(repair: true)
        #expect(report.problems.contains(.unindexedEntry(key: Self.key(2))))
        #expect(report.problems.contains(.danglingIndexRow(key: "ghost")))
        #expect(try await store.verify().isClean)
        #expect(try store.entries().count == 20)
    }

    @Test("compact gives space back and keeps every entry; it refuses while another process has the store open")
    func compaction() async throws {
        let folder = TemporaryDirectory()
        let store = try await Self.populated(folder, count: 200)
        try await store.remove((0..<180).map(Self.key))
        let worker = try await WorkerProcess(role: "reader", directory: folder.url, seconds: 30, seed: 1)
        #expect(await worker.waitUntilReady())
        await #expect(throws: StorageError.storeInUse(path: store.directory.path, operation: "compact")) {
            _ = try await store.compact()
        }
        await worker.kill()
        let sizes = try await store.compact()
        #expect(sizes.bytesAfter < sizes.bytesBefore)
        for number in 180..<200 { #expect(try store.get(Self.key(number))?.data == TestPayload.bytes(for: Self.key(number))) }
        try await store.put(NewEntry(key: "after-compaction", data: Data([9])))
        #expect(try store.get("after-compaction")?.data == Data([9]))
        #expect(try await store.verify().isClean)
        store.close()
        let reopened = try PersistentStore(directory: folder.url)
        #expect(try reopened.statistics().entries == 21)
    }
}
