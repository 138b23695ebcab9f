import Foundation
import LoopbackOrigin
import TestSupport
import Testing

@testable import CacheStorage

@Suite("verify and compact")
struct MaintenanceTests {
    /// Entries above `BlobLocation.withRecordLimit`: their bytes are in the blob log (`VerifyTests`
    /// damages small entries' bytes, which follow their records).
    static let baseLength = 20_000
    static func key(_ number: Int) -> String { TestStores.key(prefix: "verify", number: number, baseLength: baseLength) }

    static func populated(_ folder: TemporaryDirectory, count: Int = 20) async throws -> PersistentStore {
        try await TestStores.populated(folder, prefix: "verify", baseLength: baseLength, count: count)
    }

    @Test("verify finds a blob deleted behind the store's back and a flipped byte (exit 1); --repair leaves it clean (exit 0 after)")
    func findsAndRepairs() async throws {
        let folder = TemporaryDirectory("cachectl-verify")
        let store = try await Self.populated(folder)
        let blobs = store.core.blobs
        try blobs.write { txn in
            let databases = blobs.databases
            let deleted = try txn.deleteBlob(
                at: try #require(try txn.blobLocation(of: KeyDigest(key: Self.key(3)), databases)), databases)
            #expect(deleted)
            var flipped = TestPayload.bytes(for: Self.key(5))!
            flipped[100] ^= 0x01
            let location = try #require(try txn.blobLocation(of: KeyDigest(key: Self.key(5)), databases))
            try location.withKey { key in
                try flipped.withUnsafeBytes { try txn.put(location.database(databases), key: key, value: $0) }
            }
        }
        store.close()
        let path = ["--path", folder.url.path]

        let found = try await Cachectl.run(["verify", "--json"] + path)
        #expect(found.status == 1, "\(found)")
        let report = try found.json(VerifyJSON.self)
        #expect(report.entriesChecked == 20)
        #expect(Set(report.problems) == ["blob missing for '\(Self.key(3))'", "checksum mismatch for '\(Self.key(5))'"])
        #expect(!report.repaired)
        let text = try await Cachectl.run(["verify"] + path)
        #expect(text.status == 1)
        #expect(text.output.contains("not repaired; run `cachectl verify --repair`"))

        let repaired = try await Cachectl.run(["verify", "--repair"] + path)
        #expect(repaired.status == 1, "problems were found, and repaired: \(repaired)")
        #expect(repaired.output.contains("repaired: removed the damaged entries"), "\(repaired.output)")
        #expect(repaired.output.contains("verified again: clean"))

        let clean = try await Cachectl.run(["verify", "--json"] + path)
        #expect(clean.status == 0, "\(clean)")
        #expect(try clean.json(VerifyJSON.self).problems.isEmpty)
        let reopened = try PersistentStore(directory: folder.url)
        defer { reopened.close() }
        #expect(try reopened.statistics().entries == 18)
        #expect(try reopened.get(Self.key(4))?.data == TestPayload.bytes(for: Self.key(4)))
    }

    @Test("a cache too damaged to open: verify reports it (exit 1), --repair moves it aside, then it is clean")
    func unopenable() async throws {
        let folder = TemporaryDirectory("cachectl-verify-unopenable")
        try await Self.populated(folder).close()
        let data = folder.url.appendingPathComponent("blobs/data.mdb")
        try Data(repeating: 0x5A, count: 64 * 1024).write(to: data)
        let path = ["--path", folder.url.path]

        let stats = try await Cachectl.run(["stats"] + path)
        #expect(stats.status == 2, "inspection never moves a damaged cache aside: \(stats)")
        #expect(stats.errors.contains("cachectl verify --repair"))
        let found = try await Cachectl.run(["verify"] + path)
        #expect(found.status == 1, "\(found)")
        #expect(found.output.contains("the cache cannot be opened"))
        let repaired = try await Cachectl.run(["verify", "--repair"] + path)
        #expect(repaired.status == 1, "\(repaired)")
        #expect(repaired.output.contains("quarantine"))
        #expect(try await Cachectl.run(["verify"] + path).status == 0)
    }

    @Test("compact gives space back; it refuses (exit 2, saying why) while another process has the cache open")
    func compaction() async throws {
        let folder = TemporaryDirectory("cachectl-compact")
        let store = try await Self.populated(folder, count: 200)
        try await store.remove((0..<180).map(Self.key))
        store.close()
        let path = ["--path", folder.url.path]

        let reader = try await WorkerProcess(role: "reader", directory: folder.url)
        #expect(await reader.waitUntilReady())
        let refused = try await Cachectl.run(["compact"] + path)
        await reader.kill()
        #expect(refused.status == 2, "\(refused)")
        #expect(refused.errors.contains("while another process has it open; close the other process and try again"), "\(refused.errors)")

        struct Compacted: Decodable {
            var bytesBefore: Int
            var bytesAfter: Int
            var bytesFreed: Int
        }
        let compacted = try await Cachectl.run(["compact", "--json"] + path)
        #expect(compacted.status == 0, "\(compacted)")
        let sizes = try compacted.json(Compacted.self)
        #expect(sizes.bytesAfter < sizes.bytesBefore)
        #expect(sizes.bytesFreed == sizes.bytesBefore - sizes.bytesAfter)
        #expect(try await Cachectl.run(["verify"] + path).status == 0)
        let entries = try await Cachectl.run(["list", "--json"] + path).json([EntryRow].self)
        #expect(entries.count == 20)
    }
}

extension MaintenanceTests {
    /// One importer's life as this process saw it, around one `compact()`.
    private struct ImporterTimeline: Sendable {
        var spawnedAt: ContinuousClock.Instant?
        var finishedAt: ContinuousClock.Instant?
    }

    @Test("processes opening and writing while compact() runs lose nothing: they wait for it, or it refuses")
    func compactionExcludesOpeners() async throws {
        let folder = TemporaryDirectory("compact-race")
        let store = try await Self.populated(folder, count: 300)
        defer { store.close() }
        try await store.remove((0..<150).map(Self.key))  // free pages, so compaction has work to do
        let images = TemporaryDirectory("compact-race-images")
        // Enough images that the importer keeps the store open for a good part of its life.
        for number in 0..<16 {
            try PNGEncoder.encode(width: 64, height: 64) { x, y in (UInt8(x), UInt8(y), UInt8(number)) }
                .write(to: images.url.appendingPathComponent("\(number).png"))
        }
        var imported: [String] = []
        // A compaction that ran while an importer was on its way (spawned before, its entries not
        // all written when the compaction ended, so its open came after or waited) must happen, or
        // the test proved nothing; every other round may also meet the importer with the store open
        // and be refused (the refusal itself, for certain, is the test above, beside a reader).
        var refusals = 0
        var compactedBeside = 0
        // How long an importer lives from its spawn when no compaction holds it up (the last such
        // one, so the span follows the machine's load): the moments of compaction are drawn from it.
        var importerLife = Duration.milliseconds(150)
        var round = 0
        while round < 12 || (compactedBeside == 0 && round < 60) {
            defer { round += 1 }
            let base = "https://round\(round).example"
            let keys = (0..<16).map { "\(base)/\($0).png" }
            let timeline = Locked(ImporterTimeline())
            let importing = Task {
                defer { timeline.withLock { $0.finishedAt = .now } }
                return try await Cachectl.run(
                    ["import", images.url.path, "--base-url", base, "--path", folder.url.path],
                    resolve: { arguments in
                        timeline.withLock { $0.spawnedAt = .now }
                        return arguments
                    })
            }
            // From the spawn (a launch may first wait for descriptors to close): every other round
            // at once, while the process starts, so the compaction is under way before it opens;
            // the others at a random moment of its life, before, while or after it opens and writes.
            while timeline.withLock({ $0.spawnedAt == nil && $0.finishedAt == nil }) { try await Task.sleep(for: .milliseconds(1)) }
            if round % 2 == 1 {
                try await Task.sleep(for: .milliseconds(Int.random(in: 0...Int(importerLife / .milliseconds(1)))))
            }
            var heldUp = false
            do {
                _ = try await store.compact()
                heldUp = try !keys.allSatisfy({ try store.get($0) != nil })
                if heldUp { compactedBeside += 1 }
            } catch StorageError.storeInUse {
                // Only the importer can have had the store open; it changed nothing.
                #expect(timeline.withLock { $0.spawnedAt != nil && $0.finishedAt == nil }, "compaction refused with no other process alive")
                refusals += 1
            }
            let result = try await importing.value
            if !heldUp, let spawnedAt = timeline.withLock({ $0.spawnedAt }), let finishedAt = timeline.withLock({ $0.finishedAt }) {
                importerLife = finishedAt - spawnedAt
            }
            #expect(result.status == 0, "\(result)")
            imported += keys
        }
        for key in imported {
            #expect(try store.get(key) != nil, "\(key) was imported and must still be there")
        }
        #expect(try await store.verify().isClean)
        print("compact() beside an importer in \(round) rounds: \(refusals) refused, \(compactedBeside) ran while it was on its way")
        #expect(compactedBeside > 0, "no compaction ran while an importer was on its way to writing, in \(round) rounds")
    }
}
