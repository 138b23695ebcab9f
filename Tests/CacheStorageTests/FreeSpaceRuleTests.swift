import Foundation
import TestSupport
import Testing

@testable import CacheStorage

/// The free-space rule against the store's own files, on a real small volume the store has to itself.
@Suite("The free-space rule on a small volume", .enabled(if: MountedFileSystem.isAvailable))
struct FreeSpaceRuleTests {
    static func entry(_ number: Int, length: Int) -> NewEntry {
        let key = TestPayload.key(prefix: "https://cdn.example.com/room", number: number, length: length)
        return NewEntry(key: key, data: TestPayload.bytes(for: key)!)
    }

    @Test("written far past its volume in single puts and in large batches, a store never takes the free space its policy keeps")
    func neverFillsTheVolume() async throws {
        let disk = try MountedFileSystem.tmpfs(bytes: 8 << 20)
        let folder = disk.url.appendingPathComponent("cache")
        let store = try PersistentStore(directory: folder, configuration: StoreConfiguration())
        defer { store.close() }
        let total = try #require(VolumeSpace.of(disk.url.path)).totalBytes
        let keep = DiskSpacePolicy.standard.bytesToKeepFree(volumeBytes: total)
        var lowest = Int.max
        var written: [NewEntry] = []
        var refused = 0
        func note() throws {
            lowest = min(lowest, try #require(VolumeSpace.of(disk.url.path)).availableBytes)
        }
        // 12 MB in single puts, then 15 MB in batches of 2.5 MB, then one batch larger than the volume.
        for number in 0..<80 {
            let entry = Self.entry(number, length: 150_000)
            try await store.put(entry)
            written.append(entry)
            try note()
        }
        for round in 0..<6 {
            let batch = (0..<10).map { Self.entry(1_000 + round * 10 + $0, length: 250_000) }
            do {
                try await store.put(batch)
                written += batch
            } catch let error as StorageError {
                #expect(error.isOutOfSpace, "\(error)")
                refused += 1
            }
            try note()
        }
        let oversized = (0..<40).map { Self.entry(2_000 + $0, length: 250_000) }
        await #expect(throws: StorageError.self) { try await store.put(oversized) }
        try note()
        print("free-space rule: \(total) bytes, \(keep) kept free, lowest free \(lowest), \(refused) of 6 batches refused")
        #expect(lowest >= keep, "the volume came down to \(lowest) bytes free; the policy keeps \(keep)")
        #expect(refused <= 1)
        // What is left reads back whole; the newest of it is there.
        var present = 0
        for entry in written {
            guard let found = try store.get(entry.key) else { continue }
            #expect(found.data == entry.data)
            present += 1
        }
        #expect(present > 0)
        #expect(try store.get(written.last!.key) != nil)
        let report = try await store.verify()
        #expect(report.isClean, "\(report.problems)")
    }
}
