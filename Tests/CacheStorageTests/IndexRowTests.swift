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

    @Test("a journal item from a version that keyed rows by digest alone makes the index rebuild")
    func legacyItemRebuilds() async throws {
        let folder = TemporaryDirectory()
        do {
            let store = try PersistentStore(directory: folder.url, configuration: TestStores.strict())
            try await store.put(["a", "b", "c"].map { NewEntry(key: Self.key($0), data: Data(repeating: 1, count: 500)) })
            store.close()
        }
        let snapshot = try Self.snapshotIndex(folder)
        do {
            // What such a version wrote when it removed c: the bare digest, which cannot name c's row.
            let store = try PersistentStore(directory: folder.url, configuration: TestStores.strict())
            let blobs = store.core.blobs
            try blobs.write { txn in
                let digest = KeyDigest(key: Self.key("c"))
                let record = try #require(try txn.record(of: digest, blobs.databases))
                let location = BlobLocation(record: record.bytes, digest: digest)
                let deletedBlob = try txn.deleteBlob(at: location, blobs.databases)
                try txn.deleteRecord(of: digest, at: record.location, keepingPointer: false, blobs.databases)
                if case .withRecord = location {
                    #expect(!deletedBlob, "small bytes follow their record and go with it")
                } else {
                    #expect(deletedBlob)
                }
                #expect(try txn.record(of: digest, blobs.databases) == nil)
                var info = try #require(try txn.storeInfo(blobs.databases))
                let sequence = info.nextSequence.bigEndian
                try withUnsafeBytes(of: sequence) { key in
                    try digest.withBytes { try txn.put(blobs.databases.journal, key: key, value: $0) }
                }
                info.nextSequence += 1
                try txn.writeStoreInfo(info, blobs.databases)
            }
            store.close()
        }
        try Self.restoreIndex(snapshot, in: folder)
        let store = try PersistentStore(directory: folder.url, configuration: TestStores.strict())
        defer { store.close() }
        #expect(try store.statistics().entries == 2)
        #expect(try await store.verify().isClean)
        #expect(try Set(Self.rows(folder).keys) == Set([Self.key("a"), Self.key("b")]))
    }

    @Test("an index keyed by digest (schema 2) is migrated in place, keeping every row and its last access")
    func migratesDigestKeyedIndex() async throws {
        let folder = TemporaryDirectory()
        let names = ["a", "b", "c"]
        do {
            let store = try PersistentStore(directory: folder.url, configuration: TestStores.strict())
            try await store.put(names.map { NewEntry(key: Self.key($0), data: Data(repeating: 1, count: 700)) })
            try await Task.sleep(for: .milliseconds(5))
            _ = try store.get(Self.key("b"))
            try await store.flush()
            store.close()
        }
        let before = try Self.rows(folder)
        #expect(before[Self.key("b")]!.lastAccess > before[Self.key("b")]!.storedAt)
        do {
            // The table as schema 2 had it: keyed by digest.
            let connection = try SQLiteConnection(path: Self.indexPath(folder))
            try connection.execute(
                """
                ALTER TABLE entries RENAME TO entries_now;
                CREATE TABLE entries (
                    digest BLOB PRIMARY KEY NOT NULL, key TEXT NOT NULL, byte_size INTEGER NOT NULL,
                    checksum INTEGER NOT NULL, stored_at INTEGER NOT NULL, last_access INTEGER NOT NULL,
                    expires_at INTEGER, etag TEXT, last_modified TEXT, response_date INTEGER, content_type TEXT,
                    format TEXT, pixel_width INTEGER, pixel_height INTEGER, cost INTEGER, ttl_ms INTEGER,
                    response_headers BLOB, source_key TEXT, source_checksum INTEGER
                ) WITHOUT ROWID;
                INSERT INTO entries SELECT digest, key, byte_size, checksum, stored_at, last_access, expires_at, etag,
                    last_modified, response_date, content_type, format, pixel_width, pixel_height, cost, ttl_ms,
                    response_headers, source_key, source_checksum FROM entries_now;
                DROP TABLE entries_now;
                CREATE INDEX entries_by_access ON entries(last_access);
                CREATE INDEX entries_by_expiry ON entries(expires_at) WHERE expires_at IS NOT NULL;
                CREATE INDEX entries_by_source ON entries(source_key) WHERE source_key IS NOT NULL;
                PRAGMA user_version = 2;
                """)
            connection.close()
        }
        let store = try PersistentStore(directory: folder.url, configuration: TestStores.strict())
        defer { store.close() }
        #expect(try store.statistics().entries == 3)
        #expect(try await store.verify().isClean)
        let after = try Self.rows(folder)
        for name in names {
            #expect(after[Self.key(name)]?.storedAt == before[Self.key(name)]?.storedAt)
            #expect(after[Self.key(name)]?.lastAccess == before[Self.key(name)]?.lastAccess)
        }
        let connection = try SQLiteConnection(path: Self.indexPath(folder))
        defer { connection.close() }
        #expect(try connection.scalar("PRAGMA user_version") == Int64(IndexSchema.currentVersion))
        let statement = try connection.prepare("SELECT name FROM pragma_table_info('entries') WHERE pk > 0 ORDER BY pk")
        var primaryKey: [String] = []
        while try statement.step() { primaryKey.append(statement.string(0) ?? "") }
        #expect(primaryKey == ["stored_at", "digest"])
        // Read order follows the access time the old table held.
        #expect(try store.metadata(for: Self.key("b"))?.lastAccess.millisecondsSince1970 == before[Self.key("b")]!.lastAccess)
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

    @Test("an index of schema 4 gains the access-order index eviction scans alone, its order and rows kept")
    func migratesToCoveringAccessOrder() async throws {
        let folder = TemporaryDirectory()
        let names = ["a", "b", "c", "d"]
        do {
            let store = try PersistentStore(directory: folder.url, configuration: TestStores.strict())
            for name in names {
                try await store.put(NewEntry(key: Self.key(name), data: Data(repeating: 1, count: 700)))
                try await Task.sleep(for: .milliseconds(3))
            }
            _ = try store.get(Self.key("a"))
            try await store.flush()
            store.close()
        }
        do {
            // The access-order index as schema 4 had it: the last access alone.
            let connection = try SQLiteConnection(path: Self.indexPath(folder))
            try connection.execute(
                """
                DROP INDEX entries_by_access;
                CREATE INDEX entries_by_access ON entries(last_access);
                PRAGMA user_version = 4;
                """)
            connection.close()
        }
        let before = try Self.accessOrderPlan(folder)
        #expect(before.contains("USING INDEX entries_by_access") && !before.contains("COVERING"), "\(before)")

        let store = try PersistentStore(directory: folder.url, configuration: TestStores.strict())
        defer { store.close() }
        let after = try Self.accessOrderPlan(folder)
        #expect(after.contains("USING COVERING INDEX entries_by_access"), "\(after)")
        #expect(!after.contains("TEMP B-TREE"), "the scan sorts instead of following the index: \(after)")
        #expect(try store.statistics().entries == names.count)
        // Least recently used first, as before: b, c and d go, a (read last) stays.
        let removed = try await store.evict(toEntries: 1)
        #expect(removed.entries == 3)
        #expect(try store.entries().map(\.key) == [Self.key("a")])
        #expect(try await store.verify().isClean)
        let connection = try SQLiteConnection(path: Self.indexPath(folder))
        defer { connection.close() }
        #expect(try connection.scalar("PRAGMA user_version") == Int64(IndexSchema.currentVersion))
    }
}
