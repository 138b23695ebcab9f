import Foundation
import TestSupport
import Testing

@testable import CacheStorage

@Suite("PersistentStore basics")
struct PersistentStoreTests {
    static func entry(_ number: Int, length: Int = 1000, prefix: String = "https://cdn.example.com/img") -> NewEntry {
        let key = TestPayload.key(prefix: prefix, number: number, length: length)
        return NewEntry(key: key, data: TestPayload.bytes(for: key)!)
    }

    @Test("put then get returns the bytes and every attribute, across close and reopen")
    func roundTrip() async throws {
        let folder = TemporaryDirectory()
        let attributes = EntryAttributes(
            expiresAt: Date(timeIntervalSince1970: 2_000_000_000.5), etag: "\"abc\"",
            lastModified: "Wed, 21 Oct 2015 07:28:00 GMT", responseDate: Date(timeIntervalSince1970: 1_700_000_000),
            responseHeaders: Data("cache-control: max-age=60\r\n".utf8), contentType: "image/png", format: "png",
            pixelWidth: 640, pixelHeight: 480, cost: 1_228_800)
        let data = Data((0..<5000).map { UInt8($0 % 251) })
        do {
            let store = try PersistentStore(directory: folder.url)
            try await store.put(NewEntry(key: "https://x/a.png", data: data, attributes: attributes))
            let hit = try #require(try store.get("https://x/a.png"))
            #expect(hit.data == data)
            #expect(hit.metadata.attributes == attributes)
            #expect(hit.metadata.byteCount == 5000)
            store.close()
        }
        let reopened = try PersistentStore(directory: folder.url)
        let hit = try #require(try reopened.get("https://x/a.png"))
        #expect(hit.data == data)
        #expect(hit.metadata.attributes == attributes)
        #expect(hit.metadata.checksum == data.withUnsafeBytes { XXHash64.hash($0) })
        let listed = try reopened.entries()
        #expect(listed.count == 1)
        #expect(listed.first?.attributes == attributes)
        #expect(try reopened.get("https://x/b.png") == nil)
    }

    @Test("keys are compared in full: unicode, NUL, long and near-identical keys")
    func unusualKeys() async throws {
        let folder = TemporaryDirectory()
        let store = try PersistentStore(directory: folder.url)
        let keys = ["", "a", "a ", "A", "ключ/ü/😀", "with\0nul", String(repeating: "k", count: 10_000), "../../etc/passwd"]
        for (index, key) in keys.enumerated() {
            try await store.put(NewEntry(key: key, data: Data([UInt8(index)])))
        }
        for (index, key) in keys.enumerated() {
            #expect(try store.get(key)?.data == Data([UInt8(index)]), "key \(key.prefix(20))")
        }
        #expect(try store.entries().count == keys.count)
    }

    @Test("update changes attributes, not bytes; remove and removeAll empty the store")
    func updateAndRemove() async throws {
        let folder = TemporaryDirectory()
        let store = try PersistentStore(directory: folder.url)
        let first = Self.entry(1)
        try await store.put([first, Self.entry(2), Self.entry(3)])
        #expect(try await store.updateAttributes(for: first.key, to: EntryAttributes(etag: "\"v2\"")))
        #expect(try await !store.updateAttributes(for: "missing", to: EntryAttributes()))
        let updated = try #require(try store.get(first.key))
        #expect(updated.data == first.data)
        #expect(updated.metadata.attributes.etag == "\"v2\"")
        #expect(try store.entries(matching: EntryQuery(keyPrefix: first.key)).first?.attributes.etag == "\"v2\"")
        #expect(try await store.remove(first.key))
        #expect(try await !store.remove(first.key))
        #expect(try store.get(first.key) == nil)
        #expect(try store.statistics().entries == 2)
        try await store.removeAll()
        #expect(try store.statistics().entries == 0)
        #expect(try store.statistics().bytes == 0)
        #expect(try store.get(Self.entry(2).key) == nil)
        try await store.put(Self.entry(4))
        #expect(try store.get(Self.entry(4).key) != nil)
        #expect(try store.entries().map(\.key) == [Self.entry(4).key])
    }

    @Test("bad input is refused with a typed error and stores nothing")
    func refusals() async throws {
        let folder = TemporaryDirectory()
        var configuration = StoreConfiguration()
        configuration.maxEntryBytes = 1000
        configuration.maxKeyBytes = 100
        let store = try PersistentStore(directory: folder.url, configuration: configuration)
        await #expect(throws: StorageError.entryTooLarge(key: "big", byteCount: 1001, limit: 1000)) {
            try await store.put(NewEntry(key: "big", data: Data(count: 1001)))
        }
        await #expect(throws: StorageError.keyTooLong(byteCount: 101, limit: 100)) {
            try await store.put(NewEntry(key: String(repeating: "x", count: 101), data: Data(count: 1)))
        }
        // One bad entry in a batch: none of the batch is written.
        await #expect(throws: StorageError.self) {
            try await store.put([NewEntry(key: "ok", data: Data(count: 10)), NewEntry(key: "big", data: Data(count: 5000))])
        }
        #expect(try store.get("ok") == nil)
        try await store.put(NewEntry(key: "empty", data: Data()))
        #expect(try store.get("empty")?.data == Data())
        store.close()
        #expect(throws: StorageError.closed) { try store.get("empty") }
        await #expect(throws: StorageError.closed) { try await store.put(NewEntry(key: "x", data: Data())) }
    }

    @Test("listing filters, orders and pages")
    func listing() async throws {
        let folder = TemporaryDirectory()
        let store = try PersistentStore(directory: folder.url)
        let past = Date().addingTimeInterval(-3600)
        var entries: [NewEntry] = []
        for number in 0..<30 {
            var entry = Self.entry(number, length: 100 * (number + 1), prefix: number < 10 ? "https://a.example/img" : "https://b.example:8443/x")
            entry.attributes.format = number % 2 == 0 ? "png" : "jpeg"
            entry.attributes.expiresAt = number < 5 ? past : nil
            entries.append(entry)
        }
        try await store.put(entries)
        #expect(try store.entries(matching: EntryQuery(host: "a.example")).count == 10)
        #expect(try store.entries(matching: EntryQuery(host: "b.example")).count == 20)
        #expect(try store.entries(matching: EntryQuery(keyPrefix: "https://a.example/img/1/")).count == 1)
        #expect(try store.entries(matching: EntryQuery(expiredAt: Date())).count == 5)
        #expect(try store.entries(matching: EntryQuery(largerThanBytes: 2500)).count == 5)
        #expect(try store.entries(matching: EntryQuery(format: "png")).count == 15)
        let largest = try store.entries(matching: EntryQuery(order: .largest, limit: 3))
        #expect(largest.map(\.byteCount) == [3000, 2900, 2800])
        var paged: [String] = []
        for page in 0..<4 {
            paged += try store.entries(matching: EntryQuery(limit: 8, offset: page * 8)).map(\.key)
        }
        #expect(paged == entries.map(\.key).sorted())
        let stats = try store.statistics()
        #expect(stats.entries == 30)
        #expect(stats.bytes == (1...30).reduce(0) { $0 + $1 * 100 })
        #expect(stats.formats["png"]?.entries == 15)
        #expect(stats.expiredEntries == 5)
        #expect(stats.entriesWithoutExpiry == 25)
        #expect(stats.largestEntries.first?.byteCount == 3000)
    }

    @Test("dates beyond the millisecond range saturate: far past and far future select and store, never trap")
    func farDates() async throws {
        let folder = TemporaryDirectory()
        let store = try PersistentStore(directory: folder.url)
        defer { store.close() }
        let farFuture = Date(timeIntervalSince1970: 1e300)
        var forever = NewEntry(key: "forever", data: Data([1]))
        forever.attributes.expiresAt = farFuture
        try await store.put([forever, NewEntry(key: "plain", data: Data([2]))])
        let stored = try #require(try store.get("forever"))
        #expect(stored.metadata.attributes.expiresAt.map { $0 > Date(timeIntervalSince1970: 9e15) } == true)

        // 200 billion days ago and ahead: beyond Int64 milliseconds either way.
        let farPast = Date().addingTimeInterval(-200_000_000_000 * 86_400)
        #expect(try store.entries(matching: EntryQuery(storedBefore: farPast)).isEmpty)
        #expect(try store.entries(matching: EntryQuery(accessedBefore: farPast)).isEmpty)
        #expect(try store.entries(matching: EntryQuery(storedBefore: farFuture)).count == 2)
        #expect(try store.entries(matching: EntryQuery(expiredAt: farPast)).isEmpty)
        #expect(try store.entries(matching: EntryQuery(expiredAt: Date(timeIntervalSince1970: -.infinity))).isEmpty)
        #expect(try store.entries(matching: EntryQuery(expiredAt: farFuture)).map(\.key) == ["forever"])
    }

    @Test("a host filter matches the key's own host, whatever its case, port or userinfo, and pages over matches only")
    func hostFilter() async throws {
        let folder = TemporaryDirectory()
        let store = try PersistentStore(directory: folder.url)
        defer { store.close() }
        let matching = [
            "https://victim.test/a.png", "https://victim.test:8443/a", "https://VICTIM.test/b", "http://victim.test",
            "https://user@victim.test/c", "https://victim.test?q=1", "https://victim.test#top", "ftp://victim.test/d",
        ]
        let other = [
            "https://other.test/victim.test/a.png", "https://other.test/x?h=victim.test", "https://victim.test.evil.test/a",
            "https://other.test/?u=https://victim.test/a", "https://victim.test@evil.test/e", "https://evil.test/https://victim.test/",
            "https://victim.testing/f", "victim.test/g", "not a url://victim.test/h", "https://[::1]:80/victim.test",
        ]
        try await store.put((matching + other).map { NewEntry(key: $0, data: Data($0.utf8)) })
        #expect(Set(try store.entries(matching: EntryQuery(host: "victim.test")).map(\.key)) == Set(matching))
        #expect(Set(try store.entries(matching: EntryQuery(host: "Victim.TEST")).map(\.key)) == Set(matching))
        #expect(try store.entries(matching: EntryQuery(host: "[::1]")).map(\.key) == ["https://[::1]:80/victim.test"])
        var paged: [String] = []
        for page in 0..<3 {
            paged += try store.entries(matching: EntryQuery(host: "victim.test", limit: 3, offset: page * 3)).map(\.key)
        }
        #expect(paged == matching.sorted())
    }

    @Test("a key prefix is compared as bytes, so one ending in a combining mark matches")
    func combiningPrefix() async throws {
        let folder = TemporaryDirectory()
        let store = try PersistentStore(directory: folder.url)
        defer { store.close() }
        let keys = ["https://x.test/cafe\u{301}/a.png", "https://x.test/cafe/b.png", "https://x.test/caf\u{E9}/c.png", "https://x.test/\u{1F642}/d"]
        try await store.put(keys.map { NewEntry(key: $0, data: Data($0.utf8)) })
        func matches(_ prefix: String) throws -> [String] { try store.entries(matching: EntryQuery(keyPrefix: prefix)).map(\.key) }
        #expect(try matches("https://x.test/cafe\u{301}") == [keys[0]])
        #expect(try matches("https://x.test/cafe\u{301}/a") == [keys[0]])
        #expect(try matches("https://x.test/caf\u{E9}") == [keys[2]], "precomposed and decomposed are different bytes")
        #expect(try matches("https://x.test/cafe") == [keys[1], keys[0]], "in byte order: / before U+0301")
        #expect(try matches("https://x.test/\u{1F642}") == [keys[3]])
    }

    @Test("two handles on one folder in one process share the open store")
    func sharedHandles() async throws {
        let folder = TemporaryDirectory()
        let first = try PersistentStore(directory: folder.url)
        let second = try PersistentStore(directory: folder.url.appendingPathComponent("."))
        try await first.put(Self.entry(1))
        #expect(try second.get(Self.entry(1).key) != nil)
        first.close()
        #expect(try second.get(Self.entry(1).key) != nil)
        second.close()
        let third = try PersistentStore(directory: folder.url)
        #expect(try third.get(Self.entry(1).key) != nil)
    }

    @Test("recorded reads reach the index and the hit counters")
    func accessTracking() async throws {
        let folder = TemporaryDirectory()
        let store = try PersistentStore(directory: folder.url)
        try await store.put([Self.entry(1), Self.entry(2)])
        let before = try #require(try store.entries(matching: EntryQuery(keyPrefix: Self.entry(1).key)).first)
        try await Task.sleep(for: .milliseconds(20))
        _ = try store.get(Self.entry(1).key)
        _ = try store.get("absent")
        try await store.flush()
        let after = try #require(try store.entries(matching: EntryQuery(keyPrefix: Self.entry(1).key)).first)
        #expect(after.lastAccess > before.lastAccess)
        #expect(try store.entries(matching: EntryQuery(order: .mostRecentlyUsed)).first?.key == Self.entry(1).key)
        let stats = try store.statistics()
        #expect(stats.hits == 1)
        #expect(stats.misses == 1)
    }

    @Test("a read just before close is counted: close persists what the writer's last idle pass had not seen")
    func readBeforeCloseIsKept() async throws {
        let folder = TemporaryDirectory()
        var configuration = StoreConfiguration()
        // Idle passes every 10 ms, so a read often lands while one is running.
        configuration.durability = .periodic(interval: .milliseconds(10))
        let setup = try PersistentStore(directory: folder.url, configuration: configuration)
        try await setup.put(Self.entry(1))
        setup.close()
        let rounds = 60
        for round in 1...rounds {
            let store = try PersistentStore(directory: folder.url, configuration: configuration)
            // A put gives the next idle pass a sync to make, widening the moment after its drain;
            // the read lands at a different point of that pass each round.
            try await store.put(Self.entry(round + 1))
            try await Task.sleep(for: .microseconds(round * 250 % 12_000))
            #expect(try store.get(Self.entry(1).key) != nil)
            store.close()
        }
        let reopened = try PersistentStore(directory: folder.url, configuration: configuration)
        defer { reopened.close() }
        #expect(try reopened.statistics().hits == rounds)
    }

    @Test("peek reads like get but is not a read: no last access, LRU place or counter moves")
    func peekIsNotARead() async throws {
        let folder = TemporaryDirectory()
        let store = try PersistentStore(directory: folder.url)
        defer { store.close() }
        let (first, second) = (Self.entry(1), Self.entry(2))
        try await store.put([first, second])
        try await Task.sleep(for: .milliseconds(20))
        _ = try store.get(second.key)
        try await store.flush()
        let recorded = try #require(try store.metadata(for: first.key)).lastAccess
        try await Task.sleep(for: .milliseconds(20))

        let peeked = try #require(try store.peek(first.key))
        #expect(peeked.data == first.data)
        #expect(peeked.metadata.lastAccess == recorded, "peek reports the recorded last access, not now")
        #expect(try store.peek("absent") == nil)
        try await store.flush()
        #expect(try store.metadata(for: first.key)?.lastAccess == recorded)
        #expect(try store.entries(matching: EntryQuery(order: .mostRecentlyUsed)).first?.key == second.key)
        let stats = try store.statistics()
        #expect(stats.hits == 1 && stats.misses == 0, "\(stats)")

        // A read not yet flushed is what peek reports (recorded to the millisecond).
        let read = try #require(try store.get(first.key))
        let reported = try #require(try store.peek(first.key)).metadata.lastAccess
        #expect(abs(reported.timeIntervalSince(read.metadata.lastAccess)) < 0.001)
        #expect(reported > recorded)
    }

    @Test("a digest collision never returns another key's entry")
    func digestCollision() async throws {
        let folder = TemporaryDirectory()
        let store = try PersistentStore(directory: folder.url)
        // Store key B under key A's digest, as a real collision would.
        let now = Date(millisecondsSince1970: Date().millisecondsSince1970)
        let bytes = Data("B's bytes".utf8)
        let metadata = EntryMetadata(
            key: "B", byteCount: bytes.count, checksum: bytes.withUnsafeBytes { XXHash64.hash($0) }, storedAt: now,
            lastAccess: now, attributes: EntryAttributes())
        _ = try await store.core.writer.submit(
            .put([PreparedPut(digest: KeyDigest(key: "A"), key: "B", record: EntryRecord.encode(metadata), data: bytes,
                checksum: metadata.checksum, source: nil)]))
        #expect(try store.get("A") == nil)
        #expect(try store.get("B") == nil)
        #expect(try store.metadata(for: "A") == nil)
        try await store.put(NewEntry(key: "A", data: Data("A's bytes".utf8)))
        #expect(try store.get("A")?.data == Data("A's bytes".utf8))
        #expect(try store.entries().map(\.key) == ["A"])
    }

    @Test("an update conditional on the bytes changes the attributes only while the entry holds them, small or large")
    func conditionalUpdate() async throws {
        let folder = TemporaryDirectory()
        let store = try PersistentStore(directory: folder.url)
        defer { store.close() }
        for (number, size) in [2_000, BlobLocation.withRecordLimit + 1].enumerated() {
            let key = "https://cdn.example.com/conditional/\(number).jpg"
            let old = Data(progression: size, start: number, step: 29)
            let new = Data(progression: size, start: number + 1, step: 31)
            try await store.put(NewEntry(key: key, data: old, attributes: EntryAttributes(etag: "\"v1\"")))
            #expect(try await store.updateAttributes(for: key, to: EntryAttributes(etag: "\"v1b\""), ifBytesAre: old) == .updated)
            #expect(try store.metadata(for: key)?.attributes.etag == "\"v1b\"")
            // Another writer stores new bytes; a revalidation of the old ones must not describe them.
            try await store.put(NewEntry(key: key, data: new, attributes: EntryAttributes(etag: "\"v2\"")))
            #expect(try await store.updateAttributes(for: key, to: EntryAttributes(etag: "\"v1c\""), ifBytesAre: old) == .bytesChanged)
            let entry = try #require(try store.get(key))
            #expect(entry.data == new && entry.metadata.attributes.etag == "\"v2\"")
            try await store.remove(key)
            #expect(try await store.updateAttributes(for: key, to: EntryAttributes(etag: "\"v3\""), ifBytesAre: new) == .missing)
        }
        #expect(try await store.verify().isClean)
    }
}
