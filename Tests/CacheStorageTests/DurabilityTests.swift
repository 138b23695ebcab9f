import Foundation
import TestSupport
import Testing

@testable import CacheStorage

@Suite("Durability and power loss")
struct DurabilityTests {
    static func state(_ folder: TemporaryDirectory) -> String {
        (try? String(contentsOf: folder.url.appendingPathComponent("flush.state"), encoding: .utf8)) ?? ""
    }

    static func populate(_ folder: TemporaryDirectory, durability: Durability = .standard) async throws {
        var configuration = StoreConfiguration()
        configuration.durability = durability
        let store = try PersistentStore(directory: folder.url, configuration: configuration)
        try await store.put((0..<5).map { NewEntry(key: "k\($0)", data: Data(repeating: UInt8($0), count: 3000)) })
        store.close()
    }

    @Test("periodic durability marks the store dirty while writing and clean once flushed or closed")
    func markerLifecycle() async throws {
        let folder = TemporaryDirectory()
        var configuration = StoreConfiguration()
        // An hour: only the explicit flush and close below may mark it clean.
        configuration.durability = .periodic(interval: .seconds(3600))
        let store = try PersistentStore(directory: folder.url, configuration: configuration)
        try await store.put(NewEntry(key: "a", data: Data([1])))
        #expect(Self.state(folder) == "dirty \(FlushMarker.currentBootID())")
        try await store.flush()
        #expect(Self.state(folder) == "clean \(FlushMarker.currentBootID())")
        try await store.put(NewEntry(key: "b", data: Data([2])))
        #expect(Self.state(folder).hasPrefix("dirty"))
        store.close()
        #expect(Self.state(folder).hasPrefix("clean"))
    }

    @Test("unflushed writes when the machine went down: the store is moved aside, never trusted")
    func powerLossWithUnflushedWrites() async throws {
        let folder = TemporaryDirectory()
        try await Self.populate(folder)
        // As a power loss would leave it: dirty, written during an earlier boot.
        try "dirty 00000000-earlier-boot".write(to: folder.url.appendingPathComponent("flush.state"), atomically: true, encoding: .utf8)
        var strict = StoreConfiguration()
        strict.recovery = .throwError
        #expect(throws: StorageError.self) { try PersistentStore(directory: folder.url, configuration: strict) }
        let store = try PersistentStore(directory: folder.url)
        #expect(try store.statistics().entries == 0)
        #expect(try store.get("k1") == nil)
        let quarantined = try FileManager.default.contentsOfDirectory(atPath: folder.url.appendingPathComponent("quarantine").path)
        #expect(quarantined.count == 1)
        try await store.put(NewEntry(key: "fresh", data: Data([7])))
        #expect(try store.get("fresh")?.data == Data([7]))
    }

    @Test("a clean marker from an earlier boot keeps every entry")
    func restartAfterCleanFlush() async throws {
        let folder = TemporaryDirectory()
        try await Self.populate(folder)
        try "clean 00000000-earlier-boot".write(to: folder.url.appendingPathComponent("flush.state"), atomically: true, encoding: .utf8)
        let store = try PersistentStore(directory: folder.url)
        #expect(try store.statistics().entries == 5)
        #expect(try store.get("k3")?.data == Data(repeating: 3, count: 3000))
    }

    @Test("each-commit and full durability need no marker and keep entries across reopen", arguments: [Durability.eachCommit, .full])
    func synchronousModes(durability: Durability) async throws {
        let folder = TemporaryDirectory()
        try await Self.populate(folder, durability: durability)
        #expect(Self.state(folder).isEmpty)
        let store = try PersistentStore(directory: folder.url)
        #expect(try store.statistics().entries == 5)
    }
}
