import CacheStorage
import Foundation
import TestSupport
import Testing

/// Entries derived from another (thumbnails from their original) live exactly as long as the
/// source holds the bytes they were made from, whatever removes or replaces it.
@Suite("Derived entries")
struct DerivedEntryTests {
    static func source(_ number: Int, byte: UInt8 = 1) -> NewEntry {
        NewEntry(key: "https://cdn.example.com/\(number).jpg", data: Data(repeating: byte, count: 2000))
    }

    static func derived(from source: NewEntry, _ name: String) -> NewEntry {
        NewEntry(
            key: source.key + "#" + name, data: Data(repeating: 9, count: 300),
            attributes: EntryAttributes(format: "webp"), source: EntrySource(key: source.key, bytes: source.data))
    }

    @Test("a derived entry is read with its source's metadata, listed under it and counted apart")
    func readAndListed() async throws {
        let folder = TemporaryDirectory()
        let store = try PersistentStore(directory: folder.url)
        defer { store.close() }
        let original = Self.source(1)
        let small = Self.derived(from: original, "max64")
        try await store.put([original, small])
        let found = try #require(try store.get(small.key, derivedFrom: original.key))
        #expect(found.entry.data == small.data)
        #expect(found.entry.metadata.source == EntrySource(key: original.key, bytes: original.data))
        #expect(found.source.key == original.key && found.source.byteCount == original.data.count)
        #expect(try store.get(small.key, derivedFrom: "https://cdn.example.com/other.jpg") == nil)
        try await store.flush()
        #expect(try store.entries(matching: EntryQuery(derivedFrom: original.key)).map(\.key) == [small.key])
        #expect(try store.entries(matching: EntryQuery(isDerived: false)).map(\.key) == [original.key])
        let listed = try #require(try store.entries(matching: EntryQuery(isDerived: true)).first)
        #expect(listed.source == small.source)
        let stats = try store.statistics()
        #expect(stats.entries == 2 && stats.derivedEntries == 1 && stats.derivedBytes == 300)
    }

    @Test("removing the source, or replacing its bytes, removes what was derived; new attributes or the same bytes do not")
    func followsTheSource() async throws {
        let folder = TemporaryDirectory()
        let store = try PersistentStore(directory: folder.url)
        defer { store.close() }
        let original = Self.source(1)
        let (small, large) = (Self.derived(from: original, "max64"), Self.derived(from: original, "max512"))
        try await store.put([original, small, large])

        #expect(try await store.updateAttributes(for: original.key, to: EntryAttributes(etag: "\"v2\"")))
        try await store.put(original)  // the same bytes again, as a refetch brings them
        #expect(try store.contains(small.key) && store.contains(large.key))

        try await store.put(Self.source(1, byte: 2))
        #expect(try !store.contains(small.key) && !store.contains(large.key))
        #expect(try store.contains(original.key))

        let replaced = Self.source(1, byte: 2)
        let again = Self.derived(from: replaced, "max64")
        try await store.put(again)
        let removed = try await store.remove([replaced.key])
        #expect(removed == RemovalResult(entries: 2, bytes: 2300), "the derived entry is counted with its source")
        #expect(try !store.contains(again.key))
        try await store.flush()
        #expect(try store.statistics().entries == 0 && store.entries().isEmpty)
    }

    @Test("a derived entry whose source is gone or holds other bytes is refused whole, with a typed error")
    func refusedWithoutItsSource() async throws {
        let folder = TemporaryDirectory()
        let store = try PersistentStore(directory: folder.url)
        defer { store.close() }
        let original = Self.source(1)
        let orphan = Self.derived(from: original, "max64")
        let bystander = Self.source(2)
        await #expect(throws: StorageError.sourceChanged(key: orphan.key, source: original.key)) {
            try await store.put([bystander, orphan])
        }
        #expect(try !store.contains(bystander.key), "a refused put writes nothing")
        try await store.put(Self.source(1, byte: 7))
        await #expect(throws: StorageError.sourceChanged(key: orphan.key, source: original.key)) {
            try await store.put(orphan)
        }
        #expect(try !store.contains(orphan.key))
    }

    @Test("eviction of a source takes its derived entries; reading a derived entry keeps its source in use")
    func evictedWithTheSource() async throws {
        let folder = TemporaryDirectory()
        let store = try PersistentStore(directory: folder.url)
        defer { store.close() }
        let (first, second) = (Self.source(1), Self.source(2))
        let (firstSmall, secondSmall) = (Self.derived(from: first, "max64"), Self.derived(from: second, "max64"))
        try await store.put([first, firstSmall])
        try await Task.sleep(for: .milliseconds(20))
        try await store.put([second, secondSmall])
        try await Task.sleep(for: .milliseconds(20))
        // Only the first's thumbnail is read: that keeps the first original in use too.
        #expect(try store.get(firstSmall.key, derivedFrom: first.key) != nil)
        try await store.flush()
        let evicted = try await store.evict(toEntries: 2)
        #expect(evicted == RemovalResult(entries: 2, bytes: 2300))
        #expect(try store.contains(first.key) && store.contains(firstSmall.key))
        #expect(try !store.contains(second.key) && !store.contains(secondSmall.key))
        try await store.flush()
        #expect(try store.statistics().entries == 2)
        #expect(try Set(store.entries().map(\.key)) == [first.key, firstSmall.key])
    }

    @Test("a rebuilt index knows which entry each was derived from")
    func survivesARebuild() async throws {
        let folder = TemporaryDirectory()
        let original = Self.source(1)
        let small = Self.derived(from: original, "max64")
        do {
            let store = try PersistentStore(directory: folder.url)
            try await store.put([original, small])
            store.close()
        }
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(at: folder.url.appendingPathComponent("index.sqlite" + suffix))
        }
        let store = try PersistentStore(directory: folder.url)
        defer { store.close() }
        #expect(try store.entries(matching: EntryQuery(derivedFrom: original.key)).map(\.source) == [small.source])
        try await store.remove(original.key)
        #expect(try store.get(small.key, derivedFrom: original.key) == nil && !store.contains(small.key))
    }
}
