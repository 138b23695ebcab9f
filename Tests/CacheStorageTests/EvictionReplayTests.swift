import Foundation
import TestSupport
import Testing

@testable import CacheStorage

/// An eviction slice deletes its victims' index rows itself, then replays the journal in the same
/// SQLite transaction (`StoreMirror.catchUpInTransaction`). When its own deletions are all the
/// journal holds, the replay skips its victims without reading their records; when another commit
/// came between (another process's, which may have stored a victim's key again), it reads them.
@Suite("Replay after an eviction slice")
struct EvictionReplayTests {
    static func key(_ number: Int) -> String { "https://cdn.example.com/replay/\(number).jpg" }

    /// The tests act on the store's files from their own thread, beside its writer: an idle pass
    /// between two of their steps would mirror the journal they wrote before the replay they
    /// test. Passes come with periodic durability's interval, so that is a day here.
    static func populated(_ folder: TemporaryDirectory) async throws -> PersistentStore {
        var configuration = TestStores.strict()
        configuration.durability = .periodic(interval: .seconds(86_400))
        let store = try PersistentStore(directory: folder.url, configuration: configuration)
        try await store.put((0..<10).map { NewEntry(key: Self.key($0), data: Data(repeating: UInt8($0), count: 500)) })
        try await store.flush()
        return store
    }

    /// Journals an update of `key`'s attributes (its record stays) in one commit; returns the span
    /// of the journal that commit wrote.
    static func journalUpdate(_ store: PersistentStore, _ key: String) throws -> JournalSpan {
        let blobs = store.core.blobs
        return try blobs.write { txn in
            var info = try #require(try txn.storeInfo(blobs.databases))
            let before = info.head
            var changes = ChangeSet(txn: txn, databases: blobs.databases)
            guard case .attributes(.updated) = try changes.apply(.update(key: key, attributes: EntryAttributes(format: "png"), ifChecksum: nil)) else {
                Issue.record("\(key) was not updated")
                return JournalSpan(after: before, through: before)
            }
            try txn.appendJournal(changes.touched, info: &info, blobs.databases)
            try txn.writeStoreInfo(info, blobs.databases)
            return JournalSpan(after: before, through: info.head)
        }
    }

    /// Deletes `key`'s index row as a slice does, then replays with the slice's arguments.
    static func deleteRowAndReplay(_ store: PersistentStore, _ key: String, journal: JournalSpan) throws {
        let index = store.core.index
        let digest = KeyDigest(key: key)
        let stored = try #require(try store.metadata(for: key))
        try index.writer.transaction {
            let change = try index.delete(rows: [IndexRowKey(stored, digest: digest)])
            #expect(change.entries == -1)
            try index.adjustTotals(change)
            _ = try store.core.mirror.catchUpInTransaction(own: StoreMirror.OwnChanges(journal: journal, removed: [digest]))
        }
    }

    @Test("with only the slice's own commit to replay, its victims are skipped unread")
    func ownCommitOnly() async throws {
        let folder = TemporaryDirectory()
        let store = try await Self.populated(folder)
        // The folder outlives the store: released early, it would be deleted under it.
        defer { withExtendedLifetime(folder) { store.close() } }
        let journal = try Self.journalUpdate(store, Self.key(3))
        try Self.deleteRowAndReplay(store, Self.key(3), journal: journal)
        // The record is in fact still there (only its row was deleted here): the replay took the
        // slice's word for it instead of reading it, so the row stays gone, and verify finds that.
        #expect(try store.indexRowCount(for: Self.key(3)) == 0)
        let report = try await store.verify(repair: true)
        #expect(report.problems == [.unindexedEntry(key: Self.key(3))])
        #expect(try store.indexRowCount(for: Self.key(3)) == 1)
        #expect(try store.statistics().entries == 10)
    }

    @Test("with another commit between, every journaled record is read, and a victim stored again keeps its row")
    func anotherCommitBetween() async throws {
        let folder = TemporaryDirectory()
        let store = try await Self.populated(folder)
        // The folder outlives the store: released early, it would be deleted under it.
        defer { withExtendedLifetime(folder) { store.close() } }
        let journal = try Self.journalUpdate(store, Self.key(3))
        // Another commit after the slice's, as another process's put of the same key would be.
        _ = try Self.journalUpdate(store, Self.key(5))
        try Self.deleteRowAndReplay(store, Self.key(3), journal: journal)
        #expect(try store.indexRowCount(for: Self.key(3)) == 1)
        #expect(try store.entries().first { $0.key == Self.key(5) }?.attributes.format == "png")
        #expect(try await store.verify().isClean)
        #expect(try store.statistics().entries == 10)
    }

    @Test("a victim's derived entry goes with it, and the replay reads the journal for that entry's row")
    func derivedEntryGoesWithItsVictim() async throws {
        let folder = TemporaryDirectory()
        let store = try await Self.populated(folder)
        // The folder outlives the store: released early, it would be deleted under it.
        defer { withExtendedLifetime(folder) { store.close() } }
        let source = DerivedEntryTests.source(100)
        try await store.put(source)
        try await Task.sleep(for: .milliseconds(5))
        try await store.put(DerivedEntryTests.derived(from: source, "max64"))
        try await Task.sleep(for: .milliseconds(5))
        // Read after both, the ten others are used more recently: the source is the least
        // recently used, and the only victim of one entry over the limit.
        for number in 0..<10 { #expect(try store.get(Self.key(number)) != nil) }
        try await store.flush()
        let evicted = try await store.evict(toEntries: 11)
        #expect(evicted.entries == 2)
        #expect(try store.statistics().entries == 10)
        #expect(try store.indexRowCount(for: source.key + "#max64") == 0)
        #expect(try await store.verify().isClean)
    }
}
