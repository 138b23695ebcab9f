import CacheStorage
import Foundation
import TestSupport
import Testing

@Suite("purge")
struct PurgeTests {
    /// One entry of the fixture: a short name, its key, size in KiB, stored before the pause or after.
    struct Item {
        var name: String
        var key: String
        var kibibytes: Int
        var isOld: Bool
        var attributes = EntryAttributes()
    }

    static let items: [Item] = [
        Item(name: "1", key: "https://a.example/old/1.png", kibibytes: 20, isOld: true),
        Item(name: "2", key: "https://b.example/old/2.png", kibibytes: 80, isOld: true),
        Item(name: "3", key: "https://a.example:8443/old/3.png", kibibytes: 5, isOld: true),
        Item(name: "4", key: "https://a.example/new/4.png", kibibytes: 100, isOld: false),
        Item(name: "5", key: "https://b.example/new/5.png", kibibytes: 10, isOld: false),
        Item(
            name: "6", key: "https://b.example/new/expired-6.png", kibibytes: 30, isOld: false,
            attributes: EntryAttributes(expiresAt: Date(timeIntervalSinceNow: -60), etag: "\"v6\"")),
        Item(
            name: "7", key: "other-key-7", kibibytes: 70, isOld: false,
            attributes: EntryAttributes(expiresAt: Date(timeIntervalSinceNow: 3600))),
        Item(name: "8", key: "https://a.example.org/8.png", kibibytes: 1, isOld: false),
    ]

    static var totalBytes: Int { items.reduce(0) { $0 + $1.kibibytes * 1024 } }

    /// A cache holding ``items``: the old ones stored 11 s before the rest; entry 1 read since.
    /// `midpoint` lies 3 s after the old batch and 8 s before the new one: "older than AGE"
    /// (measured from `midpoint` just before cachectl starts) splits the batches as long as
    /// cachectl computes its own "now" within 8 s of that. 3 s was not always enough while the
    /// rest of the suite loaded both cores (a run selected every entry).
    static func populatedCache() async throws -> (folder: TemporaryDirectory, midpoint: Date) {
        let folder = TemporaryDirectory("purge")
        let store = try PersistentStore(directory: folder.url)
        func entries(old: Bool) -> [NewEntry] {
            items.filter { $0.isOld == old }.map {
                NewEntry(key: $0.key, data: Data(repeating: UInt8($0.name.utf8.first!), count: $0.kibibytes * 1024), attributes: $0.attributes)
            }
        }
        try await store.put(entries(old: true))
        try await Task.sleep(for: .seconds(3))
        let midpoint = Date()
        try await Task.sleep(for: .seconds(8))
        try await store.put(entries(old: false))
        _ = try store.get(items[0].key)  // entry 1 becomes the most recently read
        store.close()
        return (folder, midpoint)
    }

    /// `AGE` in a case's arguments: the time since `midpoint`, so "older than AGE" splits the
    /// batches however long the machine takes to start cachectl (up to 8 s).
    static func resolve(_ arguments: [String], midpoint: Date) -> [String] {
        arguments.map { $0 == "AGE" ? String(format: "%.3fs", Date().timeIntervalSince(midpoint)) : $0 }
    }

    static let cases: [(arguments: [String], expected: Set<String>)] = [
        (["--expired"], ["6"]),
        (["--host", "a.example"], ["1", "3", "4"]),
        (["--prefix", "https://b.example/"], ["2", "5", "6"]),
        (["--larger-than", "50KB"], ["2", "4", "7"]),
        (["--older-than", "AGE"], ["1", "2", "3"]),
        (["--unused-for", "AGE"], ["2", "3"]),
        (["--host", "b.example", "--larger-than", "50KB"], ["2"]),
        (["--prefix", "https://a.example", "--older-than", "AGE", "--larger-than", "10KiB"], ["1"]),
        // Expired first (6), then least recently read (2 and 3; 1 was read): exactly down to the size.
        (["--to-size", String(totalBytes - (30 + 80 + 5) * 1024)], ["6", "2", "3"]),
        (["--host", "a.example", "--to-size", String(totalBytes - 100 * 1024)], ["3", "4"]),
        (["--all"], Set(items.map(\.name))),
    ]

    @Test("each selector removes exactly what it says; --dry-run removes nothing", arguments: cases)
    func removesExactly(arguments: [String], expected: Set<String>) async throws {
        let (cache, midpoint) = try await Self.populatedCache()
        let path = ["--path", cache.url.path]
        let expectedKeys = Set(Self.items.filter { expected.contains($0.name) }.map(\.key))
        let expectedBytes = Self.items.filter { expected.contains($0.name) }.reduce(0) { $0 + $1.kibibytes * 1024 }

        // AGE is measured up to the moment cachectl is spawned.
        let dryRun = try await Cachectl.run(["purge", "--dry-run", "--json"] + arguments + path) {
            Self.resolve($0, midpoint: midpoint)
        }
        #expect(dryRun.status == 0, "\(dryRun)")
        let plan = try dryRun.json(PurgeJSON.self)
        #expect(plan.dryRun)
        #expect(Set(plan.selected.map(\.key)) == expectedKeys)
        #expect(plan.bytes == expectedBytes)
        let untouched = try await Cachectl.run(["list", "--json"] + path).json([EntryRow].self)
        #expect(untouched.count == Self.items.count, "--dry-run removed something")

        let purge = try await Cachectl.run(["purge", "--json"] + arguments + path) { Self.resolve($0, midpoint: midpoint) }
        #expect(purge.status == 0, "\(purge)")
        let report = try purge.json(PurgeJSON.self)
        #expect(report.entries == expected.count)
        #expect(report.bytes == expectedBytes)
        let remaining = try await Cachectl.run(["list", "--json"] + path).json([EntryRow].self)
        #expect(Set(remaining.map(\.key)) == Set(Self.items.map(\.key)).subtracting(expectedKeys))
    }

    @Test("purge with no selector, or --all with a filter, is a usage error (exit 2) that removes nothing")
    func usageErrors() async throws {
        let folder = TemporaryDirectory("purge-usage")
        let store = try PersistentStore(directory: folder.url)
        try await store.put(NewEntry(key: "k", data: Data([1])))
        store.close()
        for arguments in [["purge"], ["purge", "--all", "--host", "a.example"], ["purge", "--larger-than", "5 parsecs"]] {
            let result = try await Cachectl.run(arguments + ["--path", folder.url.path])
            #expect(result.status == 2, "\(arguments): \(result)")
            #expect(!result.errors.isEmpty)
        }
        #expect(try await Cachectl.run(["list", "--json", "--path", folder.url.path]).json([EntryRow].self).count == 1)
    }

    @Test("a duration beyond 100 years is a usage error (exit 2) that says the most, never a crash", arguments: [
        ["purge", "--older-than", "200000000000d"], ["purge", "--unused-for", "200000000000d"],
        ["purge", "--older-than", "36500d1s"], ["list", "--older-than", "1" + String(repeating: "0", count: 400) + "w"],
        ["import", "IMPORT", "--max-age", "200000000000d"],
    ])
    func hugeDurations(arguments: [String]) async throws {
        let folder = TemporaryDirectory("purge-huge-duration")
        let images = TemporaryDirectory("purge-huge-duration-images")
        let store = try PersistentStore(directory: folder.url)
        try await store.put(NewEntry(key: "k", data: Data([1])))
        store.close()
        let resolved = arguments.map { $0 == "IMPORT" ? images.url.path : $0 }
        let result = try await Cachectl.run(resolved + ["--path", folder.url.path])
        #expect(result.status == 2, "\(arguments): \(result)")
        #expect(result.errors.contains("is too long; the most is 36500d (100 years)"), "\(result.errors)")
        #expect(try await Cachectl.run(["list", "--json", "--path", folder.url.path]).json([EntryRow].self).count == 1)

        // The longest accepted duration runs and selects nothing.
        let longest = try await Cachectl.run(["purge", "--older-than", "36500d", "--json", "--path", folder.url.path])
        #expect(longest.status == 0, "\(longest)")
        #expect(try longest.json(PurgeJSON.self).entries == 0)
    }

    @Test("--host removes the host's entries only, not keys that mention it elsewhere; --prefix with a combining mark matches")
    func exactHostAndPrefix() async throws {
        let folder = TemporaryDirectory("purge-host")
        let victims = ["https://victim.test:8443/a", "https://VICTIM.test/b", "https://victim.test/c.png", "https://me@victim.test/d"]
        let bystanders = [
            "https://other.test/victim.test/a.png", "https://other.test/x?h=victim.test", "https://victim.test.evil.test/a",
            "https://other.test/?next=https://victim.test/a", "https://victim.test@evil.test/e",
        ]
        let accented = ["https://x.test/cafe\u{301}/1.png", "https://x.test/cafe\u{301}/2.png"]
        let store = try PersistentStore(directory: folder.url)
        try await store.put((victims + bystanders + accented).map { NewEntry(key: $0, data: Data($0.utf8)) })
        store.close()
        let path = ["--path", folder.url.path]

        let purge = try await Cachectl.run(["purge", "--host", "victim.test", "--json"] + path)
        #expect(purge.status == 0, "\(purge)")
        #expect(Set(try purge.json(PurgeJSON.self).selected.map(\.key)) == Set(victims))
        let prefix = try await Cachectl.run(["purge", "--prefix", "https://x.test/cafe\u{301}/", "--json"] + path)
        #expect(prefix.status == 0, "\(prefix)")
        #expect(Set(try prefix.json(PurgeJSON.self).selected.map(\.key)) == Set(accented))
        let remaining = try await Cachectl.run(["list", "--json"] + path).json([EntryRow].self)
        #expect(Set(remaining.map(\.key)) == Set(bystanders))
    }

    @Test("the human report says what was removed")
    func humanReport() async throws {
        let cache = try await Self.populatedCache().folder
        let result = try await Cachectl.run(["purge", "--expired", "--path", cache.url.path])
        #expect(result.status == 0)
        #expect(result.output.hasPrefix("removed 1 entry (30.7 KB); the cache now holds 7 entries"), "\(result.output)")
    }
}
