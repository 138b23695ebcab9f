import Foundation
import TestSupport
import Testing

@testable import CacheStorage

/// A group commit's puts have their index rows upserted beside LMDB's transaction
/// (`IndexPrefill`), and the catch-up that follows takes them as done when the journal holds only
/// that commit. A group that leaves a put's key otherwise than predicted (removed, updated, put
/// again, refused) must leave the index exactly as the catch-up alone would.
@Suite("Index rows upserted beside the commit")
struct IndexPrefillTests {
    static func key(_ number: Int) -> String { "https://cdn.example.com/prefill/\(number).jpg" }
    static func bytes(_ number: Int, count: Int = 700) -> Data { Data(repeating: UInt8(truncatingIfNeeded: number), count: count) }

    static func populated(_ folder: TemporaryDirectory) async throws -> PersistentStore {
        let store = try PersistentStore(directory: folder.url, configuration: TestStores.strict())
        try await store.put((0..<10).map { NewEntry(key: Self.key($0), data: Self.bytes($0)) })
        try await store.flush()
        return store
    }

    /// Queues `operations` on the writer while this thread holds LMDB's write transaction: the
    /// writer, which took a put queued first and waits on LMDB with it, then takes them all as one
    /// group. Returns their outcomes, in order.
    static func runAsOneGroup(_ store: PersistentStore, _ operations: [WriteOperation]) throws -> [WriteOutcome] {
        let core = store.core
        let outcomes = Locked<[Int: Result<WriteOutcome, any Error>]>([:])
        let done = DispatchGroup()
        func submit(_ operation: WriteOperation, _ position: Int) {
            done.enter()
            core.writer.submit(operation) { result in
                outcomes.withLock { $0[position] = result }
                done.leave()
            }
        }
        try core.blobs.write { _ in
            submit(.put([try store.prepare(NewEntry(key: Self.key(99), data: Self.bytes(99)))]), -1)
            // Long enough for the writer to take that put alone and wait here on LMDB with it.
            Thread.sleep(forTimeInterval: 0.3)
            for (position, operation) in operations.enumerated() { submit(operation, position) }
        }
        #expect(done.wait(timeout: .now() + 60) == .success, "the writer did not finish")
        let collected = outcomes.withLock { $0 }
        return try operations.indices.map { position in try #require(collected[position]).get() }
    }

    /// The index agrees with LMDB: `verify` finds nothing, and the totals count what is stored.
    static func expectIndexAgrees(_ store: PersistentStore, entries: Int, bytes: Int) async throws {
        let report = try await store.verify()
        #expect(report.problems == [])
        #expect(report.entriesChecked == entries)
        let statistics = try store.statistics()
        #expect(statistics.entries == entries)
        #expect(statistics.bytes == bytes)
        #expect(try store.entries().count == entries)
    }

    @Test("puts, a key put twice, and keys removed, updated or refused in the same group leave the index as LMDB says")
    func groupsWithChangesAfterPuts() async throws {
        let folder = TemporaryDirectory()
        let store = try await Self.populated(folder)
        defer { store.close() }
        var entries = 11  // the ten, and the writer's first put in each group below (the same key)
        var bytes = 10 * 700 + 700

        // Only puts, one key twice: the rows are taken as upserted, the last bytes win.
        _ = try Self.runAsOneGroup(store, [
            .put([try store.prepare(NewEntry(key: Self.key(20), data: Self.bytes(20)))]),
            .put([try store.prepare(NewEntry(key: Self.key(21), data: Self.bytes(21)))]),
            .put([try store.prepare(NewEntry(key: Self.key(20), data: Self.bytes(22, count: 900)))]),
        ])
        entries += 2
        bytes += 900 + 700
        #expect(try store.get(Self.key(20))?.data == Self.bytes(22, count: 900))
        try await Self.expectIndexAgrees(store, entries: entries, bytes: bytes)

        // A key put, then removed.
        _ = try Self.runAsOneGroup(store, [
            .put([try store.prepare(NewEntry(key: Self.key(30), data: Self.bytes(30)))]),
            .put([try store.prepare(NewEntry(key: Self.key(31), data: Self.bytes(31)))]),
            .remove([Self.key(30)]),
        ])
        entries += 1
        bytes += 700
        #expect(try store.get(Self.key(30)) == nil)
        try await Self.expectIndexAgrees(store, entries: entries, bytes: bytes)

        // A key put, then its attributes updated.
        _ = try Self.runAsOneGroup(store, [
            .put([try store.prepare(NewEntry(key: Self.key(40), data: Self.bytes(40)))]),
            .update(key: Self.key(40), attributes: EntryAttributes(format: "png"), ifChecksum: nil),
        ])
        entries += 1
        bytes += 700
        #expect(try store.entries().first { $0.key == Self.key(40) }?.attributes.format == "png")
        try await Self.expectIndexAgrees(store, entries: entries, bytes: bytes)

        // A derived put whose source is absent is refused whole, beside a put that commits.
        let derived = NewEntry(
            key: Self.key(51), data: Self.bytes(51), source: EntrySource(key: Self.key(50), bytes: Self.bytes(50)))
        let outcomes = try Self.runAsOneGroup(store, [
            .put([try store.prepare(NewEntry(key: Self.key(52), data: Self.bytes(52)))]),
            .put([try store.prepare(derived)]),
        ])
        guard case .sourceChanged = outcomes[1] else {
            Issue.record("the derived put was not refused: \(outcomes[1])")
            return
        }
        entries += 1
        bytes += 700
        #expect(try store.get(Self.key(51)) == nil)
        try await Self.expectIndexAgrees(store, entries: entries, bytes: bytes)
    }

    /// Commits a put of `key` as the writer would, journaled; returns the put's prepared record
    /// and the span of the journal the commit wrote.
    static func commitPut(_ store: PersistentStore, _ key: String, _ data: Data) throws -> ([UInt8], JournalSpan) {
        let blobs = store.core.blobs
        let prepared = try store.prepare(NewEntry(key: key, data: data))
        return try blobs.write { txn in
            var info = try #require(try txn.storeInfo(blobs.databases))
            let before = info.head
            var changes = ChangeSet(txn: txn, databases: blobs.databases)
            _ = try changes.apply(.put([prepared]))
            #expect(changes.putRecords[prepared.digest]?.record == prepared.record)
            try txn.appendJournal(changes.touched, info: &info, blobs.databases)
            try txn.writeStoreInfo(info, blobs.databases)
            return (prepared.record, JournalSpan(after: before, through: info.head))
        }
    }

    /// Replays with `key`'s row claimed as upserted, without upserting it: what the replay then
    /// does shows whether it took the claim.
    static func replayClaimingUpserted(_ store: PersistentStore, _ key: String, record: [UInt8], journal: JournalSpan) throws {
        let digest = KeyDigest(key: key)
        let row = try #require(record.withUnsafeBytes { IndexRowKey(record: $0, digest: digest) })
        try store.core.index.writer.transaction {
            _ = try store.core.mirror.catchUpInTransaction(
                own: StoreMirror.OwnChanges(journal: journal, upserted: [digest: row]))
        }
    }

    @Test("with only the commit's own journal to replay, the rows claimed as upserted are taken as done")
    func ownCommitOnly() async throws {
        let folder = TemporaryDirectory()
        let store = try await Self.populated(folder)
        defer { store.close() }
        let (record, journal) = try Self.commitPut(store, Self.key(60), Self.bytes(60))
        try Self.replayClaimingUpserted(store, Self.key(60), record: record, journal: journal)
        // The claim was false here (nothing was upserted): the replay believed it, so the row is
        // missing, and verify finds that.
        #expect(try store.indexRowCount(for: Self.key(60)) == 0)
        let report = try await store.verify(repair: true)
        #expect(report.problems == [.unindexedEntry(key: Self.key(60))])
        try await Self.expectIndexAgrees(store, entries: 11, bytes: 11 * 700)
    }

    @Test("with another commit after the commit's own, the claimed rows are read and upserted again")
    func anotherCommitAfter() async throws {
        let folder = TemporaryDirectory()
        let store = try await Self.populated(folder)
        defer { store.close() }
        let (record, journal) = try Self.commitPut(store, Self.key(60), Self.bytes(60))
        // Another process's put of the same key, after this one's.
        _ = try Self.commitPut(store, Self.key(60), Self.bytes(61, count: 800))
        try Self.replayClaimingUpserted(store, Self.key(60), record: record, journal: journal)
        #expect(try store.indexRowCount(for: Self.key(60)) == 1)
        #expect(try store.metadata(for: Self.key(60))?.byteCount == 800)
        try await Self.expectIndexAgrees(store, entries: 11, bytes: 10 * 700 + 800)
    }
}
