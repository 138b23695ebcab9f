import Foundation
import TestSupport
import Testing

@testable import CacheStorage

/// A full disk, for real: the store on a small tmpfs, the rest of it filled by another file.
@Suite("Disk full", .enabled(if: MountedFileSystem.isAvailable))
struct DiskFullTests {
    static func entry(_ number: Int, length: Int, prefix: String = "https://cdn.example.com/full") -> NewEntry {
        let key = TestPayload.key(prefix: prefix, number: number, length: length)
        return NewEntry(key: key, data: TestPayload.bytes(for: key)!)
    }

    static func configuration(reserve: Int? = nil) -> StoreConfiguration {
        var configuration = StoreConfiguration()
        configuration.diskSpace = .byteLimitOnly
        configuration.diskSpace.deletionReserveBytes = reserve
        // A small map, so filling the disk also grows it.
        configuration.initialMapBytes = 1 << 20
        configuration.recovery = .throwError
        return configuration
    }

    /// A store in `disk`'s `cache` folder holding `entries`, closed (so SQLite's -wal and -shm are gone).
    static func closedStore(on disk: MountedFileSystem, holding entries: [NewEntry]) async throws -> URL {
        let folder = disk.url.appendingPathComponent("cache")
        let store = try PersistentStore(directory: folder, configuration: configuration(reserve: 0))
        try await store.put(entries)
        store.close()
        return folder
    }

    static func litter(in folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasPrefix("flush.state.") }
    }

    @Test("puts on a full disk fail with diskFull; reads go on; writes resume in the same process once space returns")
    func putsPauseAndResume() async throws {
        let disk = try MountedFileSystem.tmpfs(bytes: 8 << 20)
        let folder = disk.url.appendingPathComponent("cache")
        let store = try PersistentStore(directory: folder, configuration: Self.configuration())
        defer { store.close() }
        var acknowledged: [NewEntry] = []
        for number in 0..<10 {
            let entry = Self.entry(number, length: 100_000)
            try await store.put(entry)
            acknowledged.append(entry)
        }
        let filler = try disk.fill()
        // Write until the disk refuses: LMDB's free pages and the file's slack may take a few.
        var refusals = 0
        for number in 10..<60 {
            do {
                try await store.put(Self.entry(number, length: 100_000))
                acknowledged.append(Self.entry(number, length: 100_000))
            } catch let error as StorageError {
                #expect(error.isOutOfSpace, "\(error)")
                #expect("\(error)".contains("disk is full"))
                refusals += 1
            }
        }
        #expect(refusals >= 40)
        #expect(try store.statistics().writeStatus == .pausedDiskFull)
        for entry in acknowledged {
            #expect(try store.get(entry.key)?.data == entry.data)
        }
        #expect(Self.litter(in: folder).isEmpty)

        try FileManager.default.removeItem(at: filler)
        let late = Self.entry(99, length: 100_000)
        try await store.put(late)
        acknowledged.append(late)
        #expect(try store.statistics().writeStatus == .writable)
        let report = try await store.verify()
        #expect(report.isClean, "\(report.problems)")
        #expect(try store.entries().count == acknowledged.count)
        for entry in acknowledged {
            #expect(try store.get(entry.key)?.data == entry.data)
        }
    }

    @Test("the flush marker failing on a full disk fails the put cleanly and leaves no temporary file")
    func flushMarkerFails() async throws {
        let disk = try MountedFileSystem.tmpfs(bytes: 4 << 20)
        let folder = disk.url.appendingPathComponent("cache")
        let store = try PersistentStore(directory: folder, configuration: Self.configuration(reserve: 0))
        defer { store.close() }
        try await store.put(Self.entry(1, length: 10_000))
        try await store.flush()
        // No marker at all: the next commit must create one, and the full disk will not let it.
        // A flush finishing in the background can write the marker again before the disk is full
        // (then the commit overwrites it in place and LMDB is what fails): remove it and fill
        // again until it stays gone. Once the disk is full, no marker can be created.
        let marker = folder.appendingPathComponent("flush.state")
        try FileManager.default.removeItem(at: marker)
        var fillers = [try disk.fill()]
        while FileManager.default.fileExists(atPath: marker.path) {
            try FileManager.default.removeItem(at: marker)
            fillers.append(try disk.fill(name: "filler\(fillers.count)"))
        }
        let failure = await #expect(throws: StorageError.self) { try await store.put(Self.entry(2, length: 10_000)) }
        #expect(failure?.isOutOfSpace == true)
        #expect("\(failure.map { "\($0)" } ?? "")".contains("flush.state"))
        #expect(Self.litter(in: folder).isEmpty)
        #expect(try store.get(Self.entry(1, length: 10_000).key)?.data == Self.entry(1, length: 10_000).data)
        for filler in fillers { try FileManager.default.removeItem(at: filler) }
        try await store.put(Self.entry(2, length: 10_000))
        #expect(try store.get(Self.entry(2, length: 10_000).key) != nil)
    }

    @Test("a store opens on a full disk with its index behind LMDB: reads, listings and verify work; writes resume and the index catches up once there is room")
    func opensOnFullDisk() async throws {
        let disk = try MountedFileSystem.tmpfs(bytes: 8 << 20)
        let entries = (0..<20).map { Self.entry($0, length: 60_000) }
        let folder = try await Self.closedStore(on: disk, holding: entries)
        // Roll the index back five entries, as a process killed between LMDB's commit and the
        // index's would leave it; a connection held open keeps SQLite's -shm, with the log emptied,
        // so the catch-up at open must write and cannot.
        let path = folder.appendingPathComponent("index.sqlite").path
        let holder = try SQLiteConnection(path: path)
        defer { holder.close() }
        try holder.execute("PRAGMA journal_mode = WAL")
        try holder.execute(
            "DELETE FROM entries WHERE key IN (\(entries.suffix(5).map { "'\($0.key)'" }.joined(separator: ",")))")
        try holder.execute("UPDATE totals SET entries = entries - 5, bytes = bytes - 300000")
        try holder.execute("UPDATE mirror_state SET applied_seq = applied_seq - 5")
        try holder.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let filler = try disk.fill()

        let store = try PersistentStore(directory: folder, configuration: Self.configuration(reserve: 0))
        defer { store.close() }
        #expect(try store.statistics().writeStatus == .pausedDiskFull)
        for entry in entries {
            #expect(try store.get(entry.key)?.data == entry.data)
        }
        #expect(try store.entries().count == 15)  // the index is behind until there is room
        #expect(try await store.verify().isClean)
        await #expect(throws: StorageError.self) { try await store.put(Self.entry(50, length: 60_000)) }

        try FileManager.default.removeItem(at: filler)
        try await store.put(Self.entry(50, length: 60_000))
        #expect(try store.get(Self.entry(50, length: 60_000).key) != nil)
        #expect(try store.statistics().writeStatus == .writable)
        try await store.flush()
        #expect(try store.entries().count == 21)
        let report = try await store.verify()
        #expect(report.isClean, "\(report.problems)")
    }

    @Test("a closed store reopens on a completely full disk: the reserve gives SQLite room; purge and removeAll work")
    func reserveLetsDeletionsRun() async throws {
        let disk = try MountedFileSystem.tmpfs(bytes: 8 << 20)
        let folder = disk.url.appendingPathComponent("cache")
        let entries = (0..<30).map { Self.entry($0, length: 100_000) }
        do {
            let store = try PersistentStore(directory: folder, configuration: Self.configuration(reserve: 512 << 10))
            try await store.put(entries)
            // The reserve is allocated by the writer when idle.
            for _ in 0..<50 where (folder.appendingPathComponent("space.reserve").fileSize ?? 0) < 512 << 10 {
                try await Task.sleep(for: .milliseconds(100))
            }
            store.close()
        }
        #expect(folder.appendingPathComponent("space.reserve").fileSize == 512 << 10)
        _ = try disk.fill()
        #expect(disk.availableBytes == 0)
        let store = try PersistentStore(directory: folder, configuration: Self.configuration(reserve: 512 << 10))
        defer { store.close() }
        #expect(try store.entries().count == 30)
        #expect(try store.statistics().writeStatus == .pausedDiskFull)
        let removed = try await store.remove(entries.prefix(5).map(\.key))
        #expect(removed.entries == 5)
        try await store.removeAll()
        #expect(try store.get(entries[10].key) == nil)
        // The freed pages take new writes although the volume itself is still full.
        try await store.put(Self.entry(100, length: 100_000))
        #expect(try store.get(Self.entry(100, length: 100_000).key)?.data == Self.entry(100, length: 100_000).data)
    }
}

extension DiskFullTests {
    @Test("with no reserve and no room even for SQLite's shared memory, a store opens with its index in memory and still lists")
    func indexInMemory() async throws {
        let disk = try MountedFileSystem.tmpfs(bytes: 4 << 20)
        let entries = (0..<12).map { Self.entry($0, length: 50_000) }
        let folder = try await Self.closedStore(on: disk, holding: entries)
        // Closing the last connection removed SQLite's -wal and -shm: opening must create them.
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("index.sqlite-shm").path))
        let filler = try disk.fill()
        let store = try PersistentStore(directory: folder, configuration: Self.configuration(reserve: 0))
        defer { store.close() }
        #expect(try store.statistics().writeStatus == .pausedDiskFull)
        #expect(try store.entries().count == 12)
        for entry in entries { #expect(try store.get(entry.key)?.data == entry.data) }
        try FileManager.default.removeItem(at: filler)
        try await store.put(Self.entry(40, length: 50_000))
        #expect(try store.entries().count == 13)
        store.close()
        // The index file catches up from LMDB's journal at the next open.
        let reopened = try PersistentStore(directory: folder, configuration: Self.configuration(reserve: 0))
        defer { reopened.close() }
        #expect(try reopened.entries().count == 13)
        #expect(try await reopened.verify().isClean)
    }
}
