import Foundation
import Synchronization
import TestSupport
import Testing

@testable import CacheStorage

#if canImport(Glibc)
import Glibc
#endif

/// What another member of a group-shared store can put at the store's names: a symbolic link
/// swapped in between two calls, a FIFO that would hang an open. Opening refuses both without
/// blocking and never changes a mode outside the store.
@Suite("Files planted at the store's names")
struct PlantedFilesTests {
    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o7777 : nil
    }

    static func populatedStore(in parent: TemporaryDirectory, configuration: StoreConfiguration = StoreConfiguration())
        async throws -> URL
    {
        let folder = parent.url.appendingPathComponent("cache", isDirectory: true)
        let store = try PersistentStore(directory: folder, configuration: configuration)
        let key = TestPayload.key(prefix: "https://cdn.example.com/planted", number: 1, length: 60)
        try await store.put(NewEntry(key: key, data: TestPayload.bytes(for: key)!))
        try await store.flush()
        store.close()
        return folder
    }

    @Test("a link swapped in and out at a store file's name while the store opens never gets the mode of its target changed")
    func chmodRace() async throws {
        let parent = TemporaryDirectory("chmod-race")
        var configuration = StoreConfiguration()
        // Group sharing sets 0660 on a 0600 file: the change a swapped link would carry to its target.
        configuration.sharing = .group
        let folder = try await Self.populatedStore(in: parent, configuration: configuration)
        let victim = parent.url.appendingPathComponent("victim").path
        try Data("a file of the opening user, outside the store".utf8).write(to: URL(fileURLWithPath: victim))
        try #require(chmod(victim, 0o600) == 0)
        let name = folder.appendingPathComponent("flush.state").path
        let sharing = configuration
        let staged = parent.url.appendingPathComponent("staged").path

        let opens = TestScale.current.linkSwapOpens
        let outcome = await OffPoolRun.result(within: 600) { () -> (attempts: Int, victimMode: mode_t?) in
            // A 0600 regular file of this user at the name (a mode a group store's opening
            // wants to change), then a link to the victim in its place.
            LinkSwapRace.run(name: name, staged: staged, victim: victim, fileMode: 0o600, attempts: opens) {
                (try? PersistentStore(directory: folder, configuration: sharing))?.close()
            }
        }
        let result = try #require(outcome, "the opens did not finish")
        print("a link swapped in and out during \(result.attempts) opens (\(TestScale.current))")
        #expect(result.victimMode == 0o600, "the victim's mode changed after \(result.attempts) opens")
    }

    /// Every name the store opens, with whether a FIFO there makes a writable open fail (`true`)
    /// or is passed over (the flush marker reads as absent and is replaced by the next write; the
    /// space reserve is not allocated).
    static let storeNames: [(name: String, refusesWritableOpen: Bool)] = [
        ("open.lock", true), ("users.lock", true), ("flush.lock", true), ("flush.state", false),
        ("space.reserve", false), ("index.sqlite", true), ("index.sqlite-wal", true),
        ("index.sqlite-shm", true), ("index.sqlite-journal", true), ("blobs/data.mdb", true),
        ("blobs/lock.mdb", true),
    ]

    /// Opens the store in `folder` in a child process (`storage-worker check`, strict): nil when
    /// the open had not returned after a generous deadline (the child is then killed), else its
    /// exit status and standard error. A child, because an open that hangs holds the store
    /// registry's lock, which would stop every later open in this process.
    static func openOutcome(_ folder: URL, readOnly: Bool) async throws -> (status: Int32, errors: String)? {
        let worker = try await WorkerProcess(
            role: "check", directory: folder,
            environment: ["STORAGE_WORKER_STRICT": "1", "STORAGE_WORKER_READ_ONLY": readOnly ? "1" : "0"])
        guard await worker.waitForLine("check ok=1 errors=0", timeout: .seconds(60)) || !worker.isRunning else {
            await worker.kill()
            return nil
        }
        let finished = await worker.finish()
        return (finished.status, finished.errors)
    }

    static func plantFIFO(at path: String) throws {
        unlink(path)
        try #require(mkfifo(path, 0o600) == 0)
    }

    @Test("a FIFO at any name a writable open uses is refused at once with an error naming it, never waited on", arguments: storeNames)
    func fifoWritable(name: String, refuses: Bool) async throws {
        let parent = TemporaryDirectory("fifo-writable")
        let folder = try await Self.populatedStore(in: parent)
        try Self.plantFIFO(at: folder.appendingPathComponent(name).path)
        let outcome = try #require(try await Self.openOutcome(folder, readOnly: false), "opening hung on \(name)")
        if refuses {
            #expect(outcome.status != 0 && outcome.errors.contains("is a FIFO, not a regular file"), "\(name): \(outcome)")
        } else {
            #expect(outcome.status == 0, "\(name): \(outcome)")
        }
    }

    @Test("a FIFO at any name a read-only open uses is refused or read around, never waited on", arguments: storeNames)
    func fifoReadOnly(name: String, refuses: Bool) async throws {
        let parent = TemporaryDirectory("fifo-readonly")
        let folder = try await Self.populatedStore(in: parent)
        try Self.plantFIFO(at: folder.appendingPathComponent(name).path)
        let outcome = try #require(try await Self.openOutcome(folder, readOnly: true), "opening hung on \(name)")
        // A read-only open builds its index in memory when the index's files cannot be read.
        #expect(
            outcome.status == 0 || outcome.errors.contains("is a FIFO, not a regular file"), "\(name): \(outcome)")
    }

    @Test("folders missing above the store are created with the store's folder mode (0700 for a private store); those there already keep theirs")
    func parentsArePrivate() throws {
        let parent = TemporaryDirectory("parents")
        let previous = umask(0o022)
        defer { umask(previous) }
        let home = parent.url.appendingPathComponent("home", isDirectory: true)
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        try #require(chmod(home.path, 0o755) == 0)
        let cacheHome = home.appendingPathComponent(".cache/xdg", isDirectory: true)
        let store = try PersistentStore(directory: cacheHome.appendingPathComponent("swift-image-cache"))
        store.close()
        #expect(Self.mode(cacheHome.path) == 0o700)
        #expect(Self.mode(cacheHome.deletingLastPathComponent().path) == 0o700)
        #expect(Self.mode(home.path) == 0o755)
    }
}
