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

        // With no app holding it, purge on a full disk also gives the bytes back to the volume.
        _ = try disk.fill()
        let availableBefore = disk.availableBytes
        let purgeAll = try await Cachectl.run(["purge", "--all", "--json"] + path)
        #expect(purgeAll.status == 0, "\(purgeAll)")
        #expect(purgeAll.output.contains("\"compacted\" : true"), "\(purgeAll)")
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
            // Slack of one batch and the index's log: the limit is checked after each batch.
            #expect(disk.availableBytes >= keepFree - (1 << 20), "after \(number): \(disk.availableBytes) bytes free")
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
