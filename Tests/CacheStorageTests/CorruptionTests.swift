import CLMDB
import Foundation
import TestSupport
import Testing

@testable import CacheStorage

@Suite("Corruption and incompatibility")
struct CorruptionTests {
    /// A store with ten checkable entries, closed.
    static func populatedStore() async throws -> TemporaryDirectory {
        let folder = TemporaryDirectory("corrupt")
        let store = try PersistentStore(directory: folder.url)
        try await store.put((0..<10).map { number in
            let key = TestPayload.key(prefix: "c", number: number, length: 20_000)
            return NewEntry(key: key, data: TestPayload.bytes(for: key)!)
        })
        store.close()
        return folder
    }

    static func key(_ number: Int) -> String { TestPayload.key(prefix: "c", number: number, length: 20_000) }

    static func dataFile(_ folder: TemporaryDirectory) -> URL { folder.url.appendingPathComponent("blobs/data.mdb") }

    static func quarantined(_ folder: TemporaryDirectory) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: folder.url.appendingPathComponent("quarantine").path)) ?? []
    }

    static func strict() -> StoreConfiguration { TestStores.strict() }

    /// Opens with the default policy: an empty working store, the old one moved aside.
    static func expectRebuiltEmpty(_ folder: TemporaryDirectory) async throws {
        let store = try PersistentStore(directory: folder.url)
        #expect(try store.statistics().entries == 0)
        #expect(try store.get(key(0)) == nil)
        #expect(quarantined(folder).count == 1)
        try await store.put(NewEntry(key: "after", data: Data([1, 2, 3])))
        #expect(try store.get("after")?.data == Data([1, 2, 3]))
        #expect(try await store.verify().isClean)
    }

    @Test("a truncated data file is detected, moved aside, and replaced by an empty store")
    func truncatedDataFile() async throws {
        let folder = try await Self.populatedStore()
        let size = try #require(Self.dataFile(folder).fileSize)
        #expect(truncate(Self.dataFile(folder).path, off_t(size / 2)) == 0)
        #expect {
            try PersistentStore(directory: folder.url, configuration: Self.strict())
        } throws: { error in
            guard case StorageError.corruptStore = error else { return false }
            return true
        }
        try await Self.expectRebuiltEmpty(folder)
    }

    @Test("a garbled header (random bytes over the meta pages) is detected")
    func garbledHeader() async throws {
        let folder = try await Self.populatedStore()
        let handle = try FileHandle(forWritingTo: Self.dataFile(folder))
        var generator = SystemRandomNumberGenerator()
        try handle.write(contentsOf: Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &generator) }))
        try handle.close()
        try await Self.expectRebuiltEmpty(folder)
    }

    @Test("a foreign file in place of the data file is detected")
    func foreignFile() async throws {
        let folder = try await Self.populatedStore()
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(repeating: 0x42, count: 20_000)
        try png.write(to: Self.dataFile(folder))
        try await Self.expectRebuiltEmpty(folder)
    }

    @Test("a file where the blob folder should be is detected")
    func fileInsteadOfFolder() async throws {
        let folder = try await Self.populatedStore()
        let blobs = folder.url.appendingPathComponent("blobs")
        try FileManager.default.removeItem(at: blobs)
        try Data("not a folder".utf8).write(to: blobs)
        try await Self.expectRebuiltEmpty(folder)
    }

    @Test("garbled bytes inside a blob and inside a record never crash and never serve wrong bytes")
    func garbledInterior() async throws {
        let folder = try await Self.populatedStore()
        var file = try Data(contentsOf: Self.dataFile(folder))
        // Damage entry 4's bytes in the middle of its blob, and entry 7's key inside its record.
        let blobBytes = TestPayload.bytes(for: Self.key(4))!
        let blobRange = try #require(file.range(of: blobBytes.subdata(in: 5000..<5064)))
        file.replaceSubrange(blobRange, with: Data(repeating: 0xA5, count: 64))
        let recordRange = try #require(file.range(of: Data(Self.key(7).utf8)))
        file.replaceSubrange(recordRange, with: Data(repeating: 0x5A, count: recordRange.count))
        try file.write(to: Self.dataFile(folder))

        let store = try PersistentStore(directory: folder.url)
        #expect(try store.get(Self.key(7)) == nil)
        let report = try await store.verify(repair: true)
        #expect(report.problems.contains(.checksumMismatch(key: Self.key(4))), "\(report.problems)")
        #expect(report.problems.contains(.danglingIndexRow(key: Self.key(7))), "\(report.problems)")
        #expect(report.problems.count == 3, "\(report.problems)")
        for number in 0..<10 {
            let hit = try store.get(Self.key(number))
            #expect(hit == nil || hit?.data == TestPayload.bytes(for: Self.key(number)), "entry \(number) served wrong bytes")
            #expect((hit == nil) == (number == 4 || number == 7))
        }
        #expect(try await store.verify().isClean)
    }

    @Test("a damaged index is rebuilt from the blob store, keeping every entry")
    func damagedIndex() async throws {
        let folder = try await Self.populatedStore()
        let index = folder.url.appendingPathComponent("index.sqlite")
        try Data(repeating: 0x17, count: 8192).write(to: index)
        #expect {
            try PersistentStore(directory: folder.url, configuration: Self.strict())
        } throws: { error in
            guard case StorageError.corruptStore = error else { return false }
            return true
        }
        let store = try PersistentStore(directory: folder.url)
        #expect(try store.statistics().entries == 10)
        for number in 0..<10 { #expect(try store.get(Self.key(number))?.data == TestPayload.bytes(for: Self.key(number))) }
        #expect(try await store.verify().isClean)
    }

    /// Garbage over every page of the index but the first (its header and schema): what a disk's
    /// bad sectors do to a file SQLite opens without complaint and fails to query.
    static func garbleIndexPages(_ folder: TemporaryDirectory) throws {
        let index = folder.url.appendingPathComponent("index.sqlite")
        let size = try #require(index.fileSize)
        try #require(size > 4096, "the index has one page")
        let handle = try FileHandle(forWritingTo: index)
        try handle.seek(toOffset: 4096)
        var random = SeededRandom(seed: 11)
        try handle.write(contentsOf: Data((4096..<size).map { _ in UInt8(truncatingIfNeeded: random.next()) }))
        try handle.close()
    }

    @Test("an index malformed under an open store is rebuilt from LMDB by the store itself when a query finds it")
    func indexMalformedWhileOpen() async throws {
        let folder = try await Self.populatedStore()
        let store = try PersistentStore(directory: folder.url)
        defer { store.close() }
        try Self.garbleIndexPages(folder)
        #expect(try store.statistics().entries == 10)
        #expect(try store.entries().count == 10)
        for number in 0..<10 { #expect(try store.get(Self.key(number))?.data == TestPayload.bytes(for: Self.key(number))) }
        #expect(try await store.verify().isClean)
    }

    @Test("an index whose damage shows only in the open's catch-up is rebuilt from LMDB by the open")
    func indexMalformedInOpensCatchUp() async throws {
        let folder = try await Self.populatedStore()
        let path = folder.url.appendingPathComponent("index.sqlite").path
        // The index behind LMDB (its catch-up replays the journal into `entries`), and garbage over
        // every page but the header and the two small tables the open reads first.
        var kept: Set<Int> = [1]
        do {
            let connection = try SQLiteConnection(path: path)
            try connection.execute("UPDATE mirror_state SET applied_seq = 0")
            try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            kept.insert(Int(try #require(try connection.scalar("SELECT rootpage FROM sqlite_master WHERE name = 'mirror_state'"))))
            kept.insert(Int(try #require(try connection.scalar("SELECT rootpage FROM sqlite_master WHERE name = 'totals'"))))
            connection.close()
        }
        let size = try #require(URL(fileURLWithPath: path).fileSize)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        var random = SeededRandom(seed: 58)
        for page in 1...(size / 4096) where !kept.contains(page) {
            try handle.seek(toOffset: UInt64((page - 1) * 4096))
            try handle.write(contentsOf: Data((0..<4096).map { _ in UInt8(truncatingIfNeeded: random.next()) }))
        }
        try handle.close()

        #expect(throws: StorageError.self) { try PersistentStore(directory: folder.url, configuration: Self.strict()) }
        let store = try PersistentStore(directory: folder.url)
        defer { store.close() }
        #expect(try store.statistics().entries == 10)
        #expect(try store.entries().count == 10)
        for number in 0..<10 { #expect(try store.get(Self.key(number))?.data == TestPayload.bytes(for: Self.key(number))) }
        #expect(try await store.verify().isClean)
    }

    @Test("verify reports a malformed index, and a repair rebuilds it whatever the recovery policy")
    func malformedIndexRepaired() async throws {
        let folder = try await Self.populatedStore()
        let store = try PersistentStore(directory: folder.url, configuration: Self.strict())
        defer { store.close() }
        try Self.garbleIndexPages(folder)
        #expect(throws: StorageError.self) { try store.statistics() }
        let found = try await store.verify()
        #expect(found.entriesChecked == 10)
        #expect(found.problems.count == 1, "\(found.problems)")
        guard case .malformedIndex = found.problems.first else {
            Issue.record("not reported as a malformed index: \(found.problems)")
            return
        }
        #expect(try await store.verify(repair: true).repaired)
        #expect(try store.statistics().entries == 10)
        #expect(try await store.verify().isClean)
    }

    @Test("a deleted index is rebuilt from the blob store")
    func deletedIndex() async throws {
        let folder = try await Self.populatedStore()
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(at: folder.url.appendingPathComponent("index.sqlite" + suffix))
        }
        let store = try PersistentStore(directory: folder.url)
        #expect(try store.entries().count == 10)
        #expect(try await store.verify().isClean)
    }

    @Test("an index schema from a newer version is refused or moved aside")
    func newerIndexSchema() async throws {
        let folder = try await Self.populatedStore()
        let connection = try SQLiteConnection(path: folder.url.appendingPathComponent("index.sqlite").path)
        try connection.execute("PRAGMA user_version = 99")
        connection.close()
        #expect {
            try PersistentStore(directory: folder.url, configuration: Self.strict())
        } throws: { error in
            guard case let StorageError.incompatibleStore(_, reason) = error else { return false }
            return reason.contains("99")
        }
        try await Self.expectRebuiltEmpty(folder)
    }

    @Test("a blob store format from a newer version is refused or moved aside")
    func newerBlobFormat() async throws {
        let folder = try await Self.populatedStore()
        try Self.rewriteStoreInfo(in: folder, format: UInt64(StoreInfo.currentFormat) + 1)
        #expect {
            try PersistentStore(directory: folder.url, configuration: Self.strict())
        } throws: { error in
            guard case let StorageError.incompatibleStore(_, reason) = error else { return false }
            return reason.contains("format \(StoreInfo.currentFormat + 1)")
        }
        try await Self.expectRebuiltEmpty(folder)
    }

    /// Stores as older versions left them: the format just before this one (every database there,
    /// its store info marked so), and the first (only the four databases it had).
    enum OlderStore: CaseIterable, Sendable {
        case previousFormat, firstFormat
    }

    @Test("a store of an older format is refused or moved aside, counted, and a new one starts empty", arguments: OlderStore.allCases)
    func olderFormat(_ older: OlderStore) async throws {
        let folder = try await Self.populatedStore()
        switch older {
        case .previousFormat:
            try Self.rewriteStoreInfo(in: folder, format: UInt64(StoreInfo.currentFormat) - 1)
        case .firstFormat:
            try Self.rewriteStoreInfo(in: folder, format: 1, droppingLaterDatabases: true)
        }
        #expect {
            try PersistentStore(directory: folder.url, configuration: Self.strict())
        } throws: { error in
            guard case let StorageError.incompatibleStore(_, reason) = error else { return false }
            return reason.contains(older == .firstFormat ? "no database" : "format \(StoreInfo.currentFormat - 1)")
        }
        #expect(Self.quarantined(folder).isEmpty, "refused: nothing moved")
        try await Self.expectRebuiltEmpty(folder)
        let store = try PersistentStore(directory: folder.url)
        defer { store.close() }
        #expect(try store.statistics().storesMovedAside == 1)
        #expect(try store.get("after") != nil, "the new store is of the current format: opened again as it is")
        #expect(Self.quarantined(folder).count == 1)
    }

    /// Rewrites the store info of `folder`'s closed store as a store of `format` wrote it: the
    /// format number, the sequences and the store's identity, then the number floor (from format 5
    /// on). `droppingLaterDatabases`: without the databases formats after the first added.
    static func rewriteStoreInfo(in folder: TemporaryDirectory, format: UInt64, droppingLaterDatabases: Bool = false) throws {
        let blobs = try BlobStore(
            directory: folder.url.appendingPathComponent("blobs"), durability: .eachCommit, initialMapBytes: 1 << 20,
            flushMarker: nil)
        defer { blobs.close() }
        try blobs.write { txn in
            let databases = blobs.databases
            let info = try #require(try txn.storeInfo(databases))
            var writer = ByteWriter()
            writer.append(format)
            writer.append(info.nextSequence)
            writer.append(info.trimmedThrough)
            writer.appendBytes(info.storeID)
            if format >= 5 { writer.append(info.numberFloor.value) }
            try Array("store-info".utf8).withUnsafeBytes { key in
                try writer.bytes.withUnsafeBytes { try txn.put(databases.info, key: key, value: $0) }
            }
            guard droppingLaterDatabases else { return }
            for database in [databases.dependents, databases.blobLog, databases.recordLog, databases.pointerTail] {
                try LMDBError.check(mdb_drop(txn.handle, database, 1), "drop a database")
            }
        }
    }
}

extension CorruptionTests {
    @Test("damaged numbers on disk are damage, never a trap: a store info sequence of 0, a negative applied sequence")
    func damagedNumbers() async throws {
        let folder = try await Self.populatedStore()
        // The index claims a negative applied sequence: read as ahead of LMDB, so it is rebuilt.
        do {
            let index = try SQLiteConnection(path: folder.url.appendingPathComponent("index.sqlite").path)
            try index.execute("UPDATE mirror_state SET applied_seq = -5")
            index.close()
        }
        do {
            let store = try PersistentStore(directory: folder.url, configuration: Self.strict())
            #expect(try store.entries().count == 10)
            #expect(try await store.verify().isClean)
            store.close()
        }
        // LMDB's store info says its next sequence is 0.
        do {
            let blobs = try BlobStore(
                directory: folder.url.appendingPathComponent("blobs"), durability: .eachCommit, initialMapBytes: 1 << 20,
                flushMarker: nil)
            try blobs.write { txn in
                var info = try #require(try txn.storeInfo(blobs.databases))
                info.nextSequence = 0
                try txn.writeStoreInfo(info, blobs.databases)
            }
            blobs.close()
        }
        Self.expectCorrupt(folder)
        try await Self.expectRebuiltEmpty(folder)
    }

    /// Opening with `.throwError` throws `corruptStore`.
    static func expectCorrupt(_ folder: TemporaryDirectory) {
        #expect {
            try PersistentStore(directory: folder.url, configuration: strict())
        } throws: { error in
            guard case StorageError.corruptStore = error else { return false }
            return true
        }
    }
}
