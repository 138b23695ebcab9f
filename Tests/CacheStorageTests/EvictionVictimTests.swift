import CSQLite
import Foundation
import TestSupport
import Testing

@testable import CacheStorage

/// Each index row keeps the blob log number its entry's record names, and eviction finds a
/// victim's record by that number instead of by digest (`EvictionVictim`). The number is only a
/// lead: a row that names another entry's number, a number no longer in the log, or none at all
/// must still evict its own entry and nothing else. A slice's rows, when they are the first in
/// access order, are deleted as one range of that order (`EvictionCandidates`), and only if the
/// range holds exactly them.
@Suite("Eviction's victims")
struct EvictionVictimTests {
    static func key(_ name: String) -> String { "https://cdn.example.com/victims/\(name).jpg" }
    static func bytes(_ seed: Int, size: Int = 900) -> Data {
        Data(progression: size, start: seed, step: 7)
    }

    /// Puts `names` one at a time, a few milliseconds apart, so each has its own time in access order.
    static func putInTurn(_ store: PersistentStore, _ names: [String]) async throws {
        for (seed, name) in names.enumerated() {
            try await store.put(NewEntry(key: key(name), data: bytes(seed)))
            try await Task.sleep(for: .milliseconds(3))
        }
    }

    /// Each row's digest and number, as the index file holds them.
    static func indexNumbers(_ store: PersistentStore) throws -> [KeyDigest: UInt64?] {
        try store.core.index.query { connection in
            let statement = try connection.prepare("SELECT digest, blob_number FROM entries")
            var numbers: [KeyDigest: UInt64?] = [:]
            while try statement.step() {
                let digest = try #require(MetadataIndex.digest(statement, column: 0))
                // `updateValue`: assigning nil through the subscript would remove the key.
                numbers.updateValue(statement.optionalInt64(1).map { UInt64(bitPattern: $0) }, forKey: digest)
            }
            return numbers
        }
    }

    /// Each entry's digest and the number its record names, as LMDB holds them.
    static func recordNumbers(_ store: PersistentStore) throws -> [KeyDigest: UInt64?] {
        let blobs = store.core.blobs
        return try blobs.read { txn in
            var numbers: [KeyDigest: UInt64?] = [:]
            try txn.forEachRecord(blobs.databases) { digest, record in
                numbers.updateValue(EntryRecord.blobNumber(in: record.bytes), forKey: digest)
                return true
            }
            return numbers
        }
    }

    /// Sets `key`'s row's number, as an index written by another version, or behind LMDB, may hold it.
    static func setRowNumber(_ store: PersistentStore, _ key: String, to number: UInt64?) throws {
        do {
            let connection = try SQLiteConnection(path: store.core.layout.index.path)
            defer { connection.close() }
            let statement = try connection.prepare("UPDATE entries SET blob_number = ? WHERE digest = ?")
            try statement.bind(1, number.map { Int64(bitPattern: $0) })
            try KeyDigest(key: key).withBytes { try statement.bind(2, blob: $0) }
            try statement.run()
        }
        let stored = try #require(try indexNumbers(store)[KeyDigest(key: key)])
        #expect(stored == number)
    }

    @Test("every row names the number its record does, whether prefilled, caught up or rebuilt")
    func rowsKeepTheNumbers() async throws {
        let folder = TemporaryDirectory()
        let store = try PersistentStore(directory: folder.url, configuration: TestStores.strict())
        defer { store.close() }
        // Groups of puts (upserted beside the commit), a key stored twice, new bytes for a key.
        try await store.put((0..<40).map { NewEntry(key: Self.key("\($0)"), data: Self.bytes($0)) })
        try await store.put([NewEntry(key: Self.key("x"), data: Self.bytes(1)), NewEntry(key: Self.key("x"), data: Self.bytes(2))])
        try await store.put(NewEntry(key: Self.key("3"), data: Self.bytes(33)))
        #expect(try await store.updateAttributes(for: Self.key("4"), to: EntryAttributes(etag: "\"v2\"")))
        var records = try Self.recordNumbers(store)
        #expect(records.count == 41)
        #expect(records.values.allSatisfy { $0 != nil })
        #expect(try Self.indexNumbers(store) == records)

        // A commit the index learns of only through the journal (as from another process).
        _ = try IndexPrefillTests.commitPut(store, Self.key("journaled"), Self.bytes(9))
        try await store.flush()
        records = try Self.recordNumbers(store)
        #expect(records.count == 42)
        #expect(try Self.indexNumbers(store) == records)

        // Rebuilt from LMDB's records.
        _ = try await store.core.writer.submit(.rebuildIndex)
        #expect(try Self.indexNumbers(store) == records)
        #expect(try await store.verify().isClean)
    }

    @Test("a row naming another entry's number, a number gone from the log, or none evicts its own entry only")
    func misleadingNumbers() async throws {
        let folder = TemporaryDirectory()
        let store = try PersistentStore(directory: folder.url, configuration: TestStores.strict())
        defer { store.close() }
        let names = ["a", "b", "c", "d", "e", "f"]
        try await Self.putInTurn(store, names)
        let numbers = try Self.recordNumbers(store)
        func number(_ name: String) -> UInt64? { numbers[KeyDigest(key: Self.key(name))] ?? nil }
        // a (the least recently used) names f's number; b a number past the log's end; c none.
        let numberOfF: UInt64 = try #require(number("f"))
        try Self.setRowNumber(store, Self.key("a"), to: numberOfF)
        try Self.setRowNumber(store, Self.key("b"), to: 9_999)
        try Self.setRowNumber(store, Self.key("c"), to: nil)
        let removed = try await store.evict(toEntries: 3)
        #expect(removed.entries == 3)
        for name in ["a", "b", "c"] { #expect(try !store.contains(Self.key(name)), "\(name) was not evicted") }
        for (seed, name) in names.enumerated().dropFirst(3) {
            #expect(try store.peek(Self.key(name))?.data == Self.bytes(seed), "\(name) was damaged")
        }
        #expect(try store.statistics().entries == 3)
        #expect(try await store.verify().isClean)
    }

    @Test("a slice's rows go as one range of the access order when chosen in the deleting transaction, else one by one")
    func accessOrderRange() async throws {
        let folder = TemporaryDirectory()
        let store = try PersistentStore(directory: folder.url, configuration: TestStores.strict())
        defer { store.close() }
        let names = (0..<16).map { "r\($0)" }
        try await Self.putInTurn(store, names)
        let index = store.core.index
        struct RolledBack: Error {}
        func moveInAccessOrder(_ name: String, to lastAccess: Int64) throws {
            try index.writer.execute("UPDATE entries SET last_access = \(lastAccess) WHERE key = '\(Self.key(name))'")
        }
        // Ten victims: more than `delete(rows:)` deletes one statement each, so that one by one
        // shows as its temporary table.
        let victims = 10
        let kept = [Int64](repeating: 0, count: victims) + [Int64](repeating: 1, count: names.count - victims)
        /// Chooses the ten least recently used rows as candidates (`chosenInside` the transaction
        /// or before it), runs `meanwhile`, deletes them, and rolls everything back; returns the
        /// change, the rows left per key, and whether the rows went through the temporary table.
        func deleteOldest(chosenInside: Bool, meanwhile: () throws -> Void = {}) throws
            -> (change: TotalsChange, left: [Int64], oneByOne: Bool)
        {
            func choose() throws -> EvictionCandidates {
                let candidates = try index.evictionCandidates(bytesToFree: 0, entriesToFree: victims, now: Date())
                #expect(candidates.victims.map(\.digest) == names.prefix(victims).map { KeyDigest(key: Self.key($0)) })
                #expect(candidates.accessOrderEnd?.row.digest == KeyDigest(key: Self.key("r9")))
                return candidates
            }
            let before = chosenInside ? nil : try choose()
            var outcome: (change: TotalsChange, left: [Int64], oneByOne: Bool)?
            do {
                try index.writer.transaction {
                    let candidates = try before ?? choose()
                    try meanwhile()
                    let change = try index.delete(candidates)
                    // Counted on the writer's connection, inside the transaction.
                    let count = try index.writer.prepare("SELECT count(*) FROM entries WHERE digest = ?")
                    let left = try names.map { name in
                        try KeyDigest(key: Self.key(name)).withBytes { try count.bind(1, blob: $0) }
                        defer { sqlite3_reset(count.handle) }
                        return try count.step() ? count.int64(0) : -1
                    }
                    let temporary = try index.writer.scalar("SELECT count(*) FROM temp.sqlite_master WHERE name = 'doomed'")
                    outcome = (change, left, temporary == 1)
                    throw RolledBack()
                }
            } catch is RolledBack {}
            guard let outcome else { throw RolledBack() }
            return outcome
        }
        let bytes = Int64(victims * Self.bytes(0).count)
        let plain = try deleteOldest(chosenInside: true)
        #expect(plain.change.entries == -Int64(victims) && plain.change.bytes == -bytes)
        #expect(plain.left == kept)
        #expect(!plain.oneByOne, "chosen in the transaction, the rows go as one range")
        // Chosen before the transaction, as another process could write the index in between: r12
        // moves into the range and r2 out of it, which leaves the range ten rows long but not the
        // ten chosen. The rows go one by one, the chosen ones.
        let swapped = try deleteOldest(chosenInside: false) {
            try moveInAccessOrder("r12", to: 0)
            try moveInAccessOrder("r2", to: Int64.max)
        }
        #expect(swapped.change.entries == -Int64(victims) && swapped.change.bytes == -bytes)
        #expect(swapped.left == kept)
        #expect(swapped.oneByOne)
        // Chosen inside, then the connection itself moves r12 into the range: the range would take
        // eleven, so they go one by one.
        let grown = try deleteOldest(chosenInside: true) { try moveInAccessOrder("r12", to: 0) }
        #expect(grown.change.entries == -Int64(victims) && grown.change.bytes == -bytes)
        #expect(grown.left == kept)
        #expect(grown.oneByOne)
        #expect(try store.statistics().entries == names.count)
        #expect(try await store.verify().isClean)
    }
}
