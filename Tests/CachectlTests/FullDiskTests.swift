import CacheStorage
import Foundation
import ImageCache
import LoopbackOrigin
import TestSupport
import Testing

/// An app's cache on a small file system that fills up: the pipeline keeps loading, cachectl keeps
/// working, purge makes room, and nothing stored before is lost.
@Suite("A full disk, end to end", .enabled(if: MountedFileSystem.isAvailable))
struct FullDiskTests {
    /// A distinct 256×256 PNG (about 197 KB) per number.
    static func png(_ number: Int) -> Data {
        PNGEncoder.encode(width: 256, height: 256) { x, y in
            (UInt8(truncatingIfNeeded: x &+ number), UInt8(truncatingIfNeeded: y &* 3), UInt8(truncatingIfNeeded: number &* 7))
        }
    }

    static func storeConfiguration() -> StoreConfiguration {
        var configuration = StoreConfiguration()
        configuration.diskSpace = .byteLimitOnly
        configuration.diskSpace.deletionReserveBytes = 512 << 10
        return configuration
    }

    @Test("loads keep returning images on a full disk; stats, list, show, verify and purge work there; writes resume")
    func pipelineAndCachectlOnFullDisk() async throws {
        let disk = try MountedFileSystem.tmpfs(bytes: 16 << 20)
        let folder = disk.url.appendingPathComponent("cache")
        let path = ["--path", folder.path]
        let origin = try await LoopbackOrigin.start { request in
            let number = Int(request.path.split(separator: "/").last?.split(separator: ".").first ?? "") ?? 0
            return OriginResponse(headers: [HeaderLine("Cache-Control", "max-age=3600")], body: Self.png(number))
        }
        defer { Task { await origin.stop() } }
        let store = try PersistentStore(directory: folder, configuration: Self.storeConfiguration())
        let pipeline = ImagePipeline(configuration: .init(diskCache: store))
        func load(_ number: Int) async throws -> ImageResponse {
            try await pipeline.image(for: ImageRequest(url: origin.url("/img/\(number).png"), policy: .persistent()))
        }

        // Before the disk fills: 20 images stored.
        for number in 0..<20 {
            let response = try await load(number)
            #expect(response.source == .network)
        }
        await pipeline.waitForPendingWrites()
        try await store.flush()
        let storedBefore = try store.entries().map(\.key)
        #expect(storedBefore.count == 20)

        // Another program fills the disk; every load still returns its image.
        let filler = try disk.fill()
        var returned = 0
        for number in 20..<60 {
            let response = try await load(number)
            #expect(response.data == Self.png(number))
            if response.source == .network { returned += 1 }
        }
        #expect(returned == 40)
        await pipeline.waitForPendingWrites()
        print("full disk: 40 loads attempted, \(returned) returned from the network, 0 failed; \(pipeline.storageFailures)")
        #expect(pipeline.storageFailures.diskFull >= 30, "\(pipeline.storageFailures)")
        #expect(try store.statistics().writeStatus == .pausedDiskFull)
        for number in 0..<20 {
            #expect(try store.get(origin.url("/img/\(number).png").absoluteString)?.data == Self.png(number))
        }

        // The operator's tools work on the full disk, beside the app.
        let stats = try await Cachectl.run(["stats", "--json"] + path)
        #expect(stats.status == 0, "\(stats)")
        #expect(stats.output.contains("disk full: writes paused"), "\(stats)")
        let table = try await Cachectl.run(["stats"] + path)
        #expect(table.status == 0 && table.output.contains("disk full: writes paused"), "\(table)")
        #expect(try await Cachectl.run(["list"] + path).status == 0)
        #expect(try await Cachectl.run(["show", storedBefore[0]] + path).status == 0)
        let verify = try await Cachectl.run(["verify"] + path)
        #expect(verify.status == 0, "\(verify)")
        let purge = try await Cachectl.run(["purge", "--prefix", origin.url("/img/1").absoluteString] + path)
        #expect(purge.status == 0, "\(purge)")
        let purged = Set(storedBefore.filter { $0.hasPrefix(origin.url("/img/1").absoluteString) })
        #expect(purged.count == 11)  // 1 and 10…19

        // Purged pages take new images without a reopen, though the volume is still full.
        let failuresBefore = pipeline.storageFailures.total
        for number in 100..<103 {
            let response = try await load(number)
            #expect(response.source == .network)
        }
        await pipeline.waitForPendingWrites()
        #expect(pipeline.storageFailures.total == failuresBefore, "\(pipeline.storageFailures)")
        #expect(try store.get(origin.url("/img/100.png").absoluteString)?.data == Self.png(100))

        try FileManager.default.removeItem(at: filler)
        try await store.flush()
        let report = try await store.verify()
        #expect(report.isClean, "\(report.problems)")
        for key in storedBefore where !purged.contains(key) {
            let number = Int(key.split(separator: "/").last!.split(separator: ".").first!)!
            let found = try store.get(key)
            #expect(found?.data == Self.png(number), "\(key): \(found.map { "\($0.data.count) bytes" } ?? "missing")")
        }
        store.close()
        // The reserve given up on the full disk is taken back on close, now that there is room:
        // the next process to find the disk full opens and purges with it.
        let reserve = folder.appendingPathComponent("space.reserve")
        #expect(((try? FileManager.default.attributesOfItem(atPath: reserve.path)[.size]) as? Int ?? 0) > 0)

        // With no app holding it, purge --all on a full disk deletes the cache's files, which
        // gives their bytes back to the volume at once.
        _ = try disk.fill()
        let availableBefore = disk.availableBytes
        let purgeAll = try await Cachectl.run(["purge", "--all", "--json"] + path)
        #expect(purgeAll.status == 0, "\(purgeAll)")
        #expect(purgeAll.output.contains("\"files_deleted\" : true"), "\(purgeAll)")
        let freed = disk.availableBytes - availableBefore
        print("purge --all on a full disk gave the volume \(freed) bytes")
        #expect(freed > 1 << 20)
        #expect(try await Cachectl.run(["verify"] + path).status == 0)
    }

    @Test("with the free-space rule, the store stays under what the volume can spare and never fills it")
    func freeSpaceLimit() async throws {
        let disk = try MountedFileSystem.tmpfs(bytes: 16 << 20)
        var configuration = StoreConfiguration()
        configuration.diskSpace = DiskSpacePolicy(minimumFreeFraction: 0.25, minimumFreeBytes: 0, recheckInterval: .zero)
        let keepFree = 4 << 20
        let store = try PersistentStore(directory: disk.url.appendingPathComponent("cache"), configuration: configuration)
        defer { store.close() }
        for number in 0..<120 {
            let key = "https://img.example/\(number)"
            try await store.put(NewEntry(key: key, data: Self.png(number)))
            // Slack of one batch and the index's log (truncated only when no reader is in it): the
            // limit is checked after each batch. Without the rule the store would fill the disk.
            #expect(disk.availableBytes >= keepFree - (2 << 20), "after \(number): \(disk.availableBytes) bytes free")
        }
        let statistics = try store.statistics()
        #expect(statistics.byteLimitBoundByFreeSpace)
        #expect(statistics.effectiveByteLimit < 12 << 20)
        #expect(statistics.bytes <= statistics.effectiveByteLimit)
        #expect(statistics.entries > 20)
        #expect(try await store.verify().isClean)
        let stats = try await Cachectl.run(["stats", "--path", disk.url.appendingPathComponent("cache").path])
        #expect(stats.output.contains("set by the volume's free space"), "\(stats)")
    }
}

extension FullDiskTests {
    /// What a `storage-worker writer` has said so far: batches acknowledged (`ack …` lines on its
    /// standard output) and puts refused for lack of space (`writer: …` lines on its standard
    /// error, where the store's log lines go too).
    struct WriterProgress {
        var acknowledged: Int
        var refusedDiskFull: Int
        var otherErrors: [Substring]

        init(_ writer: WorkerProcess) {
            acknowledged = writer.acknowledgedBatches
            let errors = writer.errors.split(separator: "\n").filter { $0.hasPrefix("writer: ") }
            refusedDiskFull = errors.filter { $0.contains("the disk is full") }.count
            otherErrors = errors.filter { !$0.contains("the disk is full") }
        }
    }

    @Test("a storage-worker writing while the disk fills keeps running, refused while full and writing again after; cachectl works beside it; a final check is clean")
    func workerOnFullDisk() async throws {
        let disk = try MountedFileSystem.tmpfs(bytes: 12 << 20)
        let folder = disk.url.appendingPathComponent("cache")
        let path = ["--path", folder.path]
        // Bound by its byte limit only: under the free-space rule the writer would evict to make
        // room inside its files once the filler has the rest, and never be refused.
        let writer = try await WorkerProcess(
            role: "writer", directory: folder, environment: ["STORAGE_WORKER_BYTE_LIMIT_ONLY": "1"])
        defer { Foundation.kill(writer.processIdentifier, SIGKILL) }
        #expect(await writer.waitUntilReady())
        // Its first batches, before the disk is filled. A fast writer may fill a volume this small
        // by itself before the filler does, so refusals are counted from here on, not required to
        // be none yet.
        let firstBatchDeadline = ContinuousClock.now + .seconds(30)
        while WriterProgress(writer).acknowledged == 0, ContinuousClock.now < firstBatchDeadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        let beforeFull = WriterProgress(writer)
        #expect(beforeFull.acknowledged > 0, "\(beforeFull)")
        let filler = try disk.fill()
        // Until a put is refused (bounded), and then a while on the full disk.
        let refusalDeadline = ContinuousClock.now + .seconds(30)
        while WriterProgress(writer).refusedDiskFull == beforeFull.refusedDiskFull, ContinuousClock.now < refusalDeadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        try await Task.sleep(for: .seconds(1))
        #expect(writer.isRunning, "the writer survived the full disk")
        let whileFull = WriterProgress(writer)
        #expect(whileFull.refusedDiskFull > beforeFull.refusedDiskFull, "no put was refused on the full disk: \(whileFull)")
        let stats = try await Cachectl.run(["stats", "--json"] + path)
        #expect(stats.status == 0, "\(stats)")
        let verify = try await Cachectl.run(["verify"] + path)
        #expect(verify.status == 0, "\(verify)")
        let purge = try await Cachectl.run(["purge", "--prefix", "shared/1"] + path)
        #expect(purge.status == 0, "\(purge)")
        try FileManager.default.removeItem(at: filler)
        let spaceBack = WriterProgress(writer)
        // Writes resume by themselves once there is room: more batches acknowledged, bounded wait.
        let resumeDeadline = ContinuousClock.now + .seconds(10)
        while WriterProgress(writer).acknowledged < spaceBack.acknowledged + 10, ContinuousClock.now < resumeDeadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        let after = WriterProgress(writer)
        #expect(after.acknowledged >= spaceBack.acknowledged + 10, "no writes after space came back: \(after)")
        #expect(writer.isRunning)
        await writer.kill()
        // The only failures the writer saw were the typed refusals of a full disk.
        #expect(after.otherErrors.isEmpty, "\(after.otherErrors)")
        print("writer on a full disk: \(beforeFull.acknowledged) batches before, \(after.refusedDiskFull) puts refused while full, \(after.acknowledged - spaceBack.acknowledged) batches once space came back")
        let check = try await Cachectl.run(["verify", "--json"] + path)
        #expect(check.status == 0, "\(check)")
        let listed = try await Cachectl.run(["list", "--json"] + path)
        #expect(listed.status == 0 && listed.output.contains("shared/"), "\(listed)")
    }
}

/// A cache owned by another user, readable but not writable: what an operator inspects.
@Suite("Another user's cache", .enabled(if: MountedFileSystem.isAvailable))
struct ForeignUserTests {
    @Test("another user may inspect a cache they can read but not write: stats, list, show, export and verify work read-only")
    func foreignUser() async throws {
        let parent = TemporaryDirectory("foreign-user")
        let folder = parent.url.appendingPathComponent("cache")
        let key = "https://img.example/foreign.png"
        do {
            let store = try PersistentStore(directory: folder)
            try await store.put(NewEntry(key: key, data: FullDiskTests.png(3), attributes: EntryAttributes(format: "png")))
            store.close()
        }
        // A copy pulled off a device: readable by everyone, writable by its owner only.
        for path in [parent.url.path, folder.path, folder.appendingPathComponent("blobs").path] { chmod(path, 0o755) }
        let enumerator = FileManager.default.enumerator(atPath: folder.path)
        while let relative = enumerator?.nextObject() as? String {
            let full = folder.appendingPathComponent(relative).path
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory)
            chmod(full, isDirectory.boolValue ? 0o755 : 0o644)
        }
        let path = ["--path", folder.path]
        let stats = try await Cachectl.run(["stats"] + path, asUser: 65534)
        #expect(stats.status == 0, "\(stats)")
        #expect(stats.output.contains("read-only"), "\(stats)")
        let list = try await Cachectl.run(["list"] + path, asUser: 65534)
        #expect(list.status == 0 && list.output.contains("foreign.png"), "\(list)")
        #expect(try await Cachectl.run(["show", key] + path, asUser: 65534).status == 0)
        #expect(try await Cachectl.run(["verify"] + path, asUser: 65534).status == 0)
        // Into a folder of their own: export refuses a folder another user owns or may write in.
        let exportParent = TemporaryDirectory("foreign-export")
        chmod(exportParent.url.path, 0o777)
        let exportTarget = exportParent.url.appendingPathComponent("inspected").path
        let export = try await Cachectl.run(["export", "--to", exportTarget] + path, asUser: 65534)
        #expect(export.status == 0, "\(export)")
        let purge = try await Cachectl.run(["purge", "--all"] + path, asUser: 65534)
        #expect(purge.status == 2 && purge.errors.contains("cannot be written"), "\(purge)")
        // Nothing the inspection did changed the cache: its owner still finds the entry.
        let store = try PersistentStore(directory: folder)
        defer { store.close() }
        #expect(try store.get(key)?.data == FullDiskTests.png(3))
    }

    @Test("export never writes through a symbolic link planted in its target folder")
    func exportRefusesPlantedLink() async throws {
        let cache = TemporaryDirectory("export-link-cache")
        do {
            let store = try PersistentStore(directory: cache.url)
            try await store.put(NewEntry(key: "https://img.example/a.png", data: FullDiskTests.png(1)))
            store.close()
        }
        let target = TemporaryDirectory("export-link-target")
        let victim = TemporaryDirectory("export-link-victim")
        let precious = victim.url.appendingPathComponent("manifest.json")
        try Data("precious".utf8).write(to: precious)
        try FileManager.default.createSymbolicLink(
            at: target.url.appendingPathComponent("manifest.json"), withDestinationURL: precious)
        let export = try await Cachectl.run(["export", "--to", target.url.path, "--path", cache.url.path])
        #expect(export.status == 2, "\(export)")
        #expect(try String(contentsOf: precious, encoding: .utf8) == "precious")
    }
}

extension FullDiskTests {
    @Test("purge --all on a full 8 MiB volume deletes the cache's files: counts true after it, the bytes back at once, an empty cache that takes writes")
    func purgeAllGivesSpaceBack() async throws {
        let disk = try MountedFileSystem.tmpfs(bytes: 8 << 20)
        let folder = disk.url.appendingPathComponent("cache")
        let path = ["--path", folder.path]
        do {
            let store = try PersistentStore(directory: folder, configuration: Self.storeConfiguration())
            defer { store.close() }
            for number in 0..<16 { try await store.put(NewEntry(key: "https://img.example/\(number)", data: Self.png(number))) }
            try await store.flush()
        }
        let filler = try disk.fill()
        let freeBefore = disk.availableBytes
        let dataFileBytes = try #require(FileManager.default.attributesOfItem(atPath: folder.path + "/blobs/data.mdb")[.size] as? Int)

        let purge = try await Cachectl.run(["purge", "--all"] + path)
        #expect(purge.status == 0, "\(purge)")
        #expect(purge.output.contains("removed 16 entries"), "\(purge.output)")
        #expect(purge.output.contains("now holds 0 entries"), "\(purge.output)")
        #expect(purge.output.contains("deleted the cache's files"), "\(purge.output)")
        // The data file's bytes are back, less the few pages of the empty store made in its place.
        #expect(disk.availableBytes - freeBefore > dataFileBytes - (512 << 10), "\(freeBefore) → \(disk.availableBytes)")

        let stats = try await Cachectl.run(["stats"] + path)
        #expect(stats.status == 0, "\(stats)")
        #expect(stats.output.contains("entries       0"), "\(stats.output)")
        let store = try PersistentStore(directory: folder, configuration: Self.storeConfiguration())
        defer { store.close() }
        try await store.put(NewEntry(key: "https://img.example/after", data: Self.png(99)))
        #expect(try store.get("https://img.example/after")?.data == Self.png(99))
        #expect(try await store.verify().isClean)
        try FileManager.default.removeItem(at: filler)
    }

    @Test("purge --all beside another process that has the cache open removes the entries one by one and says so truly")
    func purgeAllBesideAnOpener() async throws {
        let disk = try MountedFileSystem.tmpfs(bytes: 16 << 20)
        let folder = disk.url.appendingPathComponent("cache")
        let store = try PersistentStore(directory: folder, configuration: Self.storeConfiguration())
        defer { store.close() }
        for number in 0..<5 { try await store.put(NewEntry(key: "https://img.example/\(number)", data: Self.png(number))) }
        try await store.flush()
        let purge = try await Cachectl.run(["purge", "--all", "--path", folder.path])
        #expect(purge.status == 0, "\(purge)")
        #expect(purge.output.contains("removed 5 entries"), "\(purge.output)")
        #expect(purge.output.contains("now holds 0 entries"), "\(purge.output)")
        #expect(!purge.output.contains("deleted the cache's files"), "\(purge.output)")
        #expect(try store.entries().isEmpty)
    }
}
