import Foundation
import TestSupport
import Testing

@testable import CacheStorage

/// The index keys its rows by stored-at time, then digest (`IndexRowKey`), so the journal must name
/// the rows a deletion or a replacement by newer bytes leaves behind: a replay that missed one
/// would keep a second row for one entry, or a row for a removed one, and count them.
@Suite("Index rows keyed by stored time")
struct IndexRowTests {
    static func key(_ name: String) -> String { "https://cdn.example.com/\(name).jpg" }

    static func indexPath(_ folder: TemporaryDirectory) -> String {
        folder.url.appendingPathComponent("index.sqlite").path
    }

    /// The index file as it is now, its log copied back into it first.
    static func snapshotIndex(_ folder: TemporaryDirectory) throws -> Data {
        let connection = try SQLiteConnection(path: indexPath(folder))
        try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        connection.close()
        return try Data(contentsOf: URL(fileURLWithPath: indexPath(folder)))
    }

    /// Puts back a snapshot: the index then mirrors LMDB as of the snapshot's sequence.
    static func restoreIndex(_ snapshot: Data, in folder: TemporaryDirectory) throws {
        for suffix in ["-wal", "-shm"] { unlink(indexPath(folder) + suffix) }
        try snapshot.write(to: URL(fileURLWithPath: indexPath(folder)))
    }

    static func rows(_ folder: TemporaryDirectory) throws -> [String: (storedAt: Int64, lastAccess: Int64)] {
        let connection = try SQLiteConnection(path: indexPath(folder))
        defer { connection.close() }
        let statement = try connection.prepare("SELECT key, stored_at, last_access FROM entries")
        var rows: [String: (storedAt: Int64, lastAccess: Int64)] = [:]
        while try statement.step() {
            let key = statement.string(0) ?? ""
            #expect(rows[key] == nil, "two rows for \(key)")
            rows[key] = (statement.int64(1), statement.int64(2))
        }
        return rows
    }

    /// The journal has kept every item after `applied` (so opening replays it, not rebuilds).
    static func journalKeepsItems(after applied: UInt64, _ folder: TemporaryDirectory) throws -> Bool {
        let store = try PersistentStore(directory: folder.url, configuration: TestStores.strict())
        defer { store.close() }
        let info = try store.core.blobs.read { try $0.storeInfo(store.core.blobs.databases) }
        return info.map { $0.trimmedThrough <= applied && applied < $0.head } ?? false
    }

    static func appliedSequence(_ folder: TemporaryDirectory) throws -> UInt64 {
        let connection = try SQLiteConnection(path: indexPath(folder))
        defer { connection.close() }
        return UInt64(try connection.scalar("SELECT applied_seq FROM mirror_state") ?? 0)
    }

    @Test("a replayed journal deletes the rows that newer bytes and a removal left behind")
    func replayDeletesRowsLeftBehind() async throws {
        let folder = TemporaryDirectory()
        let names = ["a", "b", "c", "d"]
        do {
            let store = try PersistentStore(directory: folder.url, configuration: TestStores.strict())
            try await store.put(names.map { NewEntry(key: Self.key($0), data: Data(repeating: 1, count: 1_000)) })
            store.close()
        }
        let first = try Self.snapshotIndex(folder)
        let firstApplied = try Self.appliedSequence(folder)
        let before = try Self.rows(folder)
        #expect(before.count == 4)

        // Newer bytes for a (stored later, so in another row) and a new entry, in one commit.
        try await Task.sleep(for: .milliseconds(5))
        do {
            let store = try PersistentStore(directory: folder.url, configuration: TestStores.strict())
            try await store.put([
                NewEntry(key: Self.key("a"), data: Data(repeating: 2, count: 3_000)),
                NewEntry(key: Self.key("e"), data: Data(repeating: 3, count: 1_000)),
            ])
            store.close()
        }
        try Self.restoreIndex(first, in: folder)
        #expect(try Self.journalKeepsItems(after: firstApplied, folder))
        do {
            let store = try PersistentStore(directory: folder.url, configuration: TestStores.strict())
            let statistics = try store.statistics()
            #expect(statistics.entries == 5)
            #expect(statistics.bytes == 4 * 1_000 + 3_000)
            #expect(try await store.verify().isClean)
            store.close()
        }
        let replaced = try Self.rows(folder)
        #expect(replaced.count == 5)
        let newRow = try #require(replaced[Self.key("a")])
        #expect(newRow.storedAt > before[Self.key("a")]!.storedAt)

        // A removal, in one commit of its own.
        let second = try Self.snapshotIndex(folder)
        let secondApplied = try Self.appliedSequence(folder)
        do {
            let store = try PersistentStore(directory: folder.url, configuration: TestStores.strict())
            #expect(try await store.remove(Self.key("b")))
            store.close()
        }
        try Self.restoreIndex(second, in: folder)
        #expect(try Self.journalKeepsItems(after: secondApplied, folder))
        do {
            let store = try PersistentStore(directory: folder.url, configuration: TestStores.strict())
            #expect(try store.statistics().entries == 4)
            #expect(try await store.verify().isClean)
            store.close()
        }
        #expect(try Set(Self.rows(folder).keys) == Set(["a", "c", "d", "e"].map(Self.key)))
    }

    /// What SQLite's planner says it reads for the victims' scan, on the index file in `folder`.
    static func accessOrderPlan(_ folder: TemporaryDirectory) throws -> String {
        let connection = try SQLiteConnection(path: indexPath(folder))
        defer { connection.close() }
        let statement = try connection.prepare(built: "EXPLAIN QUERY PLAN \(MetadataIndex.accessOrderVictims)")
        var plan: [String] = []
        while try statement.step() { plan.append(statement.string(3) ?? "") }
        return plan.joined(separator: "; ")
    }

    @Test("rows are keyed by stored-at time, and eviction's scan reads the access-order index alone, in its order")
    func accessOrderIndexCoversTheScan() async throws {
        let folder = TemporaryDirectory()
        let names = ["a", "b", "c", "d"]
        let store = try PersistentStore(directory: folder.url, configuration: TestStores.strict())
        defer { store.close() }
        for name in names {
            try await store.put(NewEntry(key: Self.key(name), data: Data(repeating: 1, count: 700)))
            try await Task.sleep(for: .milliseconds(3))
        }
        _ = try store.get(Self.key("a"))
        try await store.flush()
        let plan = try Self.accessOrderPlan(folder)
        #expect(plan.contains("USING COVERING INDEX entries_by_access"), "\(plan)")
        #expect(!plan.contains("TEMP B-TREE"), "the scan sorts instead of following the index: \(plan)")
        do {
            let connection = try SQLiteConnection(path: Self.indexPath(folder))
            defer { connection.close() }
            #expect(try connection.scalar("PRAGMA user_version") == Int64(IndexSchema.currentVersion))
            let statement = try connection.prepare("SELECT name FROM pragma_table_info('entries') WHERE pk > 0 ORDER BY pk")
            var primaryKey: [String] = []
            while try statement.step() { primaryKey.append(statement.string(0) ?? "") }
            #expect(primaryKey == ["stored_at", "digest"])
        }
        // Least recently used first: b, c and d go, a (read last) stays.
        #expect(try await store.evict(toEntries: 1).entries == 3)
        #expect(try store.entries().map(\.key) == [Self.key("a")])
        #expect(try await store.verify().isClean)
    }
}
