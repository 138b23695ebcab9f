import Foundation
import TestSupport
import Testing

@testable import CacheStorage

/// Puts append their pointers to the pointer tail instead of writing them into `records`, and the
/// writer merges the tail into `records` in rounds (`PointerTailIndex`, `PointerMerge`): every read must
/// find every entry wherever its pointer is, in this process and in others, before, during and
/// after a round, and a round must leave nothing behind.
@Suite("Pointer tail")
struct PointerTailTests {
    static func key(_ number: Int) -> String { "https://cdn.example.com/tail/\(number).jpg" }
    /// Small bytes follow their records; every fifth entry is larger, so its blob is in the blob log.
    static func bytes(_ number: Int, generation: Int = 1) -> Data {
        let size = number % 5 == 0 ? 20_000 : 1_000 + number % 3_000
        return Data(progression: size, start: number &+ generation &* 31, step: 7)
    }

    static func configuration(threshold: Int = 1 << 30, slice: Int = 8192) -> StoreConfiguration {
        var configuration = TestStores.strict()
        configuration.byteLimit = 1 << 40
        configuration.pointerMergeThreshold = threshold
        configuration.pointerMergeSlice = slice
        return configuration
    }

    struct Counts: Equatable {
        var records = 0
        var tail = 0
        var floor: UInt64 = 0
    }

    static func counts(_ store: PersistentStore) throws -> Counts {
        let blobs = store.core.blobs
        let databases = blobs.databases
        return try blobs.read { txn in
            let info = try txn.storeInfo(databases)
            return Counts(
                records: try txn.count(databases.records), tail: try txn.count(databases.pointerTail),
                floor: info?.numberFloor.value ?? 0)
        }
    }

    static func put(_ store: PersistentStore, _ numbers: Range<Int>, generation: Int = 1) async throws {
        try await store.put(
            numbers.map { NewEntry(key: key($0), data: bytes($0, generation: generation), attributes: EntryAttributes()) })
    }

    static func expectAll(_ store: PersistentStore, _ expected: [Int: Int], _ context: String) throws {
        for (number, generation) in expected {
            let hit = try store.get(key(number))
            #expect(hit?.data == bytes(number, generation: generation), "\(context): entry \(number)")
        }
    }

    @Test("puts append their pointers to the tail, not to records, and reads find every entry, before and after reopening")
    func pointersInTail() async throws {
        let folder = TemporaryDirectory("tail")
        var store = try PersistentStore(directory: folder.url, configuration: Self.configuration())
        for start in stride(from: 0, to: 300, by: 50) { try await Self.put(store, start..<start + 50) }
        let counts = try Self.counts(store)
        #expect(counts.records == 0)
        #expect(counts.tail == 300)
        let expected = Dictionary(uniqueKeysWithValues: (0..<300).map { ($0, 1) })
        try Self.expectAll(store, expected, "open")
        store.close()
        store = try PersistentStore(directory: folder.url, configuration: Self.configuration())
        defer { store.close() }
        try Self.expectAll(store, expected, "reopened")
        #expect(try await store.verify().isClean)
    }

    @Test("a round merges the tail into records in slices and prunes it, raising the number floor; every entry reads throughout")
    func roundMergesAndPrunes() async throws {
        let folder = TemporaryDirectory("tail")
        let store = try PersistentStore(directory: folder.url, configuration: Self.configuration(threshold: 100, slice: 30))
        defer { store.close() }
        var expected: [Int: Int] = [:]
        var floors: Set<UInt64> = []
        for start in stride(from: 0, to: 500, by: 20) {
            try await Self.put(store, start..<start + 20)
            for number in start..<start + 20 { expected[number] = 1 }
            try Self.expectAll(store, expected, "after the batch from \(start)")
            let counts = try Self.counts(store)
            floors.insert(counts.floor)
            // A round takes 100 pairs or more, in slices of 30 or more, one after each batch.
            #expect(counts.tail < 100 + 5 * 20, "the tail grew past a round: \(counts.tail)")
        }
        let counts = try Self.counts(store)
        #expect(counts.records >= 300, "rounds left \(counts.records) pointers in records")
        // Each round's last slice raised the floor past the pairs it pruned.
        #expect(floors.count >= 3, "\(floors)")
        let blobs = store.core.blobs
        let last = try blobs.read { txn in
            try txn.lastKey(blobs.databases.recordLog).flatMap(BlobLocation.number(fromKey:))
        }
        #expect(counts.floor <= (last ?? 0) + 1)
        #expect(try await store.verify().isClean)
    }

    @Test("replacements, updates and removals of entries whose pointers are in the tail, then a round across them, leave each entry as its last write did")
    func changesInTailThenRound() async throws {
        let folder = TemporaryDirectory("tail")
        var store = try PersistentStore(directory: folder.url, configuration: Self.configuration())
        try await Self.put(store, 0..<100)
        // Twice within the tail, one of them twice in one batch.
        try await Self.put(store, 0..<20, generation: 2)
        try await store.put([
            NewEntry(key: Self.key(30), data: Self.bytes(30, generation: 3), attributes: EntryAttributes()),
            NewEntry(key: Self.key(30), data: Self.bytes(30, generation: 4), attributes: EntryAttributes()),
        ])
        #expect(try await store.remove((40..<60).map(Self.key)).entries == 20)
        var attributes = EntryAttributes()
        attributes.contentType = "image/x-updated"
        #expect(try await store.updateAttributes(for: Self.key(70), to: attributes))
        var expected = Dictionary(uniqueKeysWithValues: (0..<100).map { ($0, $0 < 20 ? 2 : 1) })
        expected[30] = 4
        for number in 40..<60 { expected[number] = nil }
        func check(_ store: PersistentStore, _ context: String) async throws {
            try Self.expectAll(store, expected, context)
            for number in 40..<60 { #expect(try store.get(Self.key(number)) == nil, "\(context): removed \(number) reads") }
            #expect(try store.metadata(for: Self.key(70))?.attributes.contentType == "image/x-updated", "\(context)")
            #expect(try store.entries().count == expected.count, "\(context)")
            let report = try await store.verify()
            #expect(report.isClean, "\(context): \(report.problems)")
        }
        try await check(store, "in the tail")
        // Only live records keep their pairs: replaced and removed ones took theirs with them.
        #expect(try Self.counts(store).tail == 80)
        // Reopened with a round due at the next batch: it merges the tail in slices of 7.
        store.close()
        store = try PersistentStore(directory: folder.url, configuration: Self.configuration(threshold: 50, slice: 7))
        defer { store.close() }
        for number in 100..<120 {
            try await Self.put(store, number..<number + 1)
            expected[number] = 1
        }
        try await store.flush()
        let counts = try Self.counts(store)
        #expect(counts.records >= 80, "no round ran: \(counts)")
        #expect(counts.tail < 50)
        try await check(store, "merged")
    }

    @Test("the newest entry removed, its number is not given to the next put, which every index then finds")
    func removedNewestKeepsItsNumber() async throws {
        let folder = TemporaryDirectory("tail")
        let store = try PersistentStore(directory: folder.url, configuration: Self.configuration())
        defer { store.close() }
        for round in 0..<20 {
            let newest = 1_000 + 2 * round
            try await Self.put(store, newest..<newest + 1)
            // Read: this process's index has now read the newest pair.
            #expect(try store.get(Self.key(newest))?.data == Self.bytes(newest))
            #expect(try await store.remove(Self.key(newest)))
            try await Self.put(store, newest + 1..<newest + 2)
            #expect(try store.get(Self.key(newest + 1))?.data == Self.bytes(newest + 1), "round \(round)")
        }
        #expect(try await store.verify().isClean)
    }

    @Test("an original replaced by new bytes in a later opening takes its old variant with it, and the new variant stays")
    func replacedOriginalWithVariant() async throws {
        let folder = TemporaryDirectory("tail")
        let original = "https://cdn.example.com/tail/original.png"
        let variant = "https://cdn.example.com/tail/original.png#thumb"
        func put(_ store: PersistentStore, generation: Int) async throws {
            let bytes = Self.bytes(7, generation: generation)
            try await store.put(NewEntry(key: original, data: bytes))
            try await store.put(
                NewEntry(key: variant, data: Self.bytes(8, generation: generation), source: EntrySource(key: original, bytes: bytes)))
        }
        var store = try PersistentStore(directory: folder.url, configuration: Self.configuration())
        try await put(store, generation: 1)
        store.close()
        store = try PersistentStore(directory: folder.url, configuration: Self.configuration())
        var attributes = EntryAttributes()
        attributes.etag = "\"2\""
        #expect(try await store.updateAttributes(for: original, to: attributes))
        store.close()
        store = try PersistentStore(directory: folder.url, configuration: Self.configuration())
        defer { store.close() }
        try await put(store, generation: 2)
        try await store.flush()
        #expect(try store.get(original)?.data == Self.bytes(7, generation: 2))
        #expect(try store.get(variant)?.data == Self.bytes(8, generation: 2))
        #expect(try store.entries(matching: EntryQuery(isDerived: true)).count == 1)
        #expect(try await store.verify().isClean)
    }

    @Test("a snapshot older than a round's pruning still finds the entries the round moved into records")
    func snapshotOlderThanPruning() async throws {
        let folder = TemporaryDirectory("tail")
        let store = try PersistentStore(directory: folder.url, configuration: Self.configuration())
        defer { store.close() }
        try await Self.put(store, 0..<60)
        let blobs = store.core.blobs
        let digests = (0..<60).map { KeyDigest(key: Self.key($0)) }
        let tail = blobs.databases.pointerTail
        func found(_ txn: LMDBTransaction) throws -> Int {
            try digests.filter { try txn.record(of: $0, blobs.databases) != nil }.count
        }
        let outcome = try blobs.read { old -> (before: Int, tailAfter: Int, newFound: Int, oldRecords: Int, oldFound: Int, merging: Bool) in
            let before = try found(old)
            // A whole round in one slice, committed while `old` is open.
            var merge = PointerMerge()
            try merge.step(blobs, threshold: 1, sliceSize: 1_000)
            // A newer snapshot brings the index up to the pruning, which drops the pairs.
            let newer = try blobs.read { new in (try new.count(tail), try found(new)) }
            // The old snapshot has neither the pointers in records nor the index's pairs.
            return (before, newer.0, newer.1, try old.count(blobs.databases.records), try found(old), merge.isUnderWay)
        }
        #expect(outcome.before == 60)
        #expect(!outcome.merging)
        #expect(outcome.tailAfter == 0)
        #expect(outcome.newFound == 60)
        #expect(blobs.databases.tailIndex.count == 0)
        #expect(outcome.oldRecords == 0)
        #expect(outcome.oldFound == 60)
    }

    @Test("a writer merging the tail in rounds of 24 pairs, 8 a transaction, killed at random moments (TestScale.tailMergeKills times), loses no acknowledged put and leaves a store that verifies")
    func killedInsideRounds() async throws {
        let folder = TemporaryDirectory("tail-crash")
        var random = SystemRandomNumberGenerator()
        var acknowledged: [String: UInt64] = [:]
        // Pointers in `records` after each kill: only a round's slices add them.
        var pointerCounts: Set<Int> = []
        let environment = ["STORAGE_WORKER_STRICT": "1", "STORAGE_WORKER_NO_LIMIT": "1", "STORAGE_WORKER_MERGE": "24,8"]
        let kills = TestScale.current.tailMergeKills
        var selfKilled = 0
        for cycle in 0..<kills {
            // Killed after a random number of acknowledged batches, not a random time, and by
            // itself, within a few milliseconds of its own work after them: however loaded the
            // machine (this process may not run for seconds), each cycle moves the store on by
            // about that much, so the kills fall in different places of the rounds.
            let batches = Int.random(in: 1...24, using: &random)
            let worker = try await WorkerProcess(
                role: "writer", directory: folder.url, seed: UInt64(cycle + 1),
                environment: environment.merging(["STORAGE_WORKER_KILL_AFTER": "\(batches),5000"]) { $1 })
            #expect(await worker.waitUntilReady(), "cycle \(cycle): worker did not start")
            let deadline = ContinuousClock.now + .seconds(600)
            while worker.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            if !worker.isRunning { selfKilled += 1 }
            await worker.kill()
            let acks = worker.acknowledgedBatches
            #expect(acks >= batches, "cycle \(cycle): killed after \(acks) batches, not \(batches): \(worker.errors)")
            acknowledged.merge(CrashTests.acknowledged(worker.output)) { max($0, $1) }
            // Reopened with `.throwError`, verified, nothing quarantined.
            let present = try await CrashTests.checkInvariants(folder.url, cycle: cycle)
            for (key, generation) in acknowledged {
                let found = try #require(present[key], "cycle \(cycle): acknowledged \(key) (g\(generation)) is gone")
                #expect(found >= generation, "cycle \(cycle): \(key) went back from g\(generation) to g\(found)")
            }
            let store = try PersistentStore(directory: folder.url, configuration: CrashTests.strictConfiguration())
            pointerCounts.insert(try Self.counts(store).records)
            store.close()
        }
        print("killed inside rounds (\(TestScale.current)): \(kills) kills (\(selfKilled) by the writer itself), \(acknowledged.count) keys checked after every kill, \(pointerCounts.count) counts of pointers")
        #expect(selfKilled == kills, "a writer outlived its hang bound and was killed by the test")
        #expect(acknowledged.count > 100, "the writers acknowledged too little for the test to prove anything")
        // Slices wrote pointers between kills: more than five different counts in 40 kills. Once
        // every key is stored, the count differs only by the pairs a kill left in the tail, so how
        // many counts show up follows the number of kills (each cycle acknowledges 1 to 24
        // batches, and a few milliseconds' more work, before its kill).
        #expect(pointerCounts.count > kills / 8, "\(pointerCounts.count) distinct counts of pointers in records")
    }

    @Test("a process merging the tail while a writer and a reader in other processes use it: every acknowledged put reads back, no errors")
    func roundsBesideOtherProcesses() async throws {
        let folder = TemporaryDirectory("tail-multi")
        let store = try PersistentStore(directory: folder.url, configuration: Self.configuration(threshold: 64, slice: 64))
        let environment = ["STORAGE_WORKER_NO_LIMIT": "1", "STORAGE_WORKER_STRICT": "1"]
        let writer = try await WorkerProcess(role: "writer", directory: folder.url, seconds: 4, seed: 1, environment: environment)
        let reader = try await WorkerProcess(role: "reader", directory: folder.url, seconds: 4, seed: 2, environment: environment)
        // Each of this process's puts runs its writer, which merges the pairs the other appends:
        // for as long as the other processes run, and until a round has written pointers.
        let deadline = ContinuousClock.now + .seconds(4)
        var number = 0
        while try ContinuousClock.now < deadline || Self.counts(store).records == 0 {
            let key = TestPayload.key(prefix: "merger", number: number, length: 1_500)
            try await store.put(
                NewEntry(
                    key: key, data: try #require(TestPayload.bytes(for: key, generation: 1)),
                    attributes: EntryAttributes(etag: TestPayload.etag(generation: 1))))
            number += 1
            try #require(number < 100_000, "no round finished")
            try await Task.sleep(for: .milliseconds(5))
        }
        let written = await writer.finish()
        let read = await reader.finish()
        #expect(written.status == 0, "writer: \(written.output) \(written.errors)")
        #expect(read.status == 0, "reader: \(read.output) \(read.errors)")
        #expect(!read.output.contains(" hits=0 "), "the reader never found an entry")
        let acknowledged = CrashTests.acknowledged(written.output)
        #expect(!acknowledged.isEmpty)
        // This process's index followed the other's appends and its own prunings.
        for (key, generation) in acknowledged {
            let hit = try #require(try store.get(key), "acknowledged \(key) unreadable")
            #expect(TestPayload.generation(fromETag: hit.metadata.attributes.etag) == generation, "\(key)")
            #expect(TestPayload.matches(hit.data, key: key, etag: hit.metadata.attributes.etag), "\(key)")
        }
        let counts = try Self.counts(store)
        #expect(counts.records > 0, "no round wrote a pointer: \(counts)")
        store.close()
        try await CrashTests.checkInvariants(folder.url, cycle: 0)
    }
}

extension StoreConfiguration {
    /// Strict, each put writing its pointer into `records` (no pointer tail): for the tests of
    /// `records` itself and of the logs.
    static var strictWithPointersInRecords: StoreConfiguration {
        var configuration = TestStores.strict()
        configuration.pointerMergeThreshold = 0
        return configuration
    }
}
