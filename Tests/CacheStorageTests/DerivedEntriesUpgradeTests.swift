import CLMDB
import Foundation
import TestSupport
import Testing

@testable import CacheStorage

/// A store written before derived entries existed has no `dependents` database: opening it creates
/// one, and a disk too full for that one page must not keep it from opening.
@Suite("Derived entries in an older store", .enabled(if: MountedFileSystem.isAvailable))
struct DerivedEntriesUpgradeTests {
    /// Turns the store in `folder` into one from before derived entries: its `dependents` database
    /// dropped, then the file rewritten compacted, so that LMDB holds no free page that a new
    /// database could take without growing the file.
    static func removeDependents(in folder: URL) throws {
        let blobs = folder.appendingPathComponent("blobs")
        let copy = folder.appendingPathComponent("compacted")
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        var env: OpaquePointer?
        try check(mdb_env_create(&env))
        mdb_env_set_maxdbs(env, 8)
        do {
            try check(mdb_env_open(env, blobs.path, 0, 0o600))
            var txn: OpaquePointer?
            try check(mdb_txn_begin(env, nil, 0, &txn))
            var dbi: MDB_dbi = 0
            try check(mdb_dbi_open(txn, "dependents", 0, &dbi))
            try check(mdb_drop(txn, dbi, 1))
            try check(mdb_txn_commit(txn))
            try check(mdb_env_copy2(env, copy.path, UInt32(MDB_CP_COMPACT)))
        } catch {
            mdb_env_close(env)
            throw error
        }
        mdb_env_close(env)
        guard rename(copy.appendingPathComponent("data.mdb").path, blobs.appendingPathComponent("data.mdb").path) == 0 else {
            throw StorageError.io(path: blobs.path, operation: "replace data.mdb", errno: errno, message: String(cString: strerror(errno)))
        }
        try FileManager.default.removeItem(at: copy)
    }

    static func check(_ code: Int32) throws {
        guard code == 0 else { throw StorageError.lmdb(operation: "prepare the test store", code: code, message: String(cString: mdb_strerror(code))) }
    }

    @Test("an older store opens on a full disk without it: reads work, derived puts are refused until a reopen with room")
    func opensOnAFullDisk() async throws {
        let disk = try MountedFileSystem.tmpfs(bytes: 8 << 20)
        let folder = disk.url.appendingPathComponent("cache")
        let configuration = DiskFullTests.configuration(reserve: 0)
        let original = NewEntry(key: "https://cdn.example.com/a.jpg", data: Data(repeating: 5, count: 50_000))
        let thumbnail = NewEntry(
            key: original.key + " max64", data: Data(repeating: 6, count: 2_000),
            source: EntrySource(key: original.key, bytes: original.data))
        do {
            let store = try PersistentStore(directory: folder, configuration: configuration)
            try await store.put(original)  // an older version stored no derived entries
            store.close()
        }
        try Self.removeDependents(in: folder)
        let filler = try disk.fill()
        #expect(disk.availableBytes == 0)

        do {
            let store = try PersistentStore(directory: folder, configuration: configuration)
            defer { store.close() }
            #expect(store.core.blobs.databases.dependents == nil, "a page was found without growing the file")
            #expect(try store.get(original.key)?.data == original.data)
            try FileManager.default.removeItem(at: filler)
            // Room again, but this store was opened without the database: a derived put says so.
            await #expect {
                try await store.put(thumbnail)
            } throws: { error in
                guard let error = error as? StorageError, error.isOutOfSpace else { return false }
                return "\(error)".contains("reopen it once there is room")
            }
            try await store.put(NewEntry(key: "https://cdn.example.com/b.jpg", data: Data(repeating: 7, count: 1_000)))
        }

        let store = try PersistentStore(directory: folder, configuration: configuration)
        defer { store.close() }
        #expect(store.core.blobs.databases.dependents != nil)
        try await store.put(thumbnail)
        #expect(try store.get(thumbnail.key, derivedFrom: original.key) != nil)
        try await store.remove(original.key)
        #expect(try !store.contains(thumbnail.key), "the new database ties them")
    }
}
