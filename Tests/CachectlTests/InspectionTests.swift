import CacheStorage
import Foundation
import ImageCache
import TestSupport
import Testing

@Suite("stats, list and show")
struct InspectionTests {
    static let now = Date()

    /// A response received 21 hours ago with max-age=86400: fresh for 3 more hours.
    static var dayOldResponse: StoredResponse {
        let received = now.addingTimeInterval(-21 * 3600)
        return StoredResponse(
            status: 200,
            headers: ["Date": HTTPDate.string(from: received), "Cache-Control": "max-age=86400", "ETag": "\"f1\""],
            requestTime: received, responseTime: received)
    }

    static func populatedCache() async throws -> TemporaryDirectory {
        let folder = TemporaryDirectory("inspection")
        let store = try PersistentStore(directory: folder.url)
        let response = dayOldResponse
        try await store.put([
            NewEntry(
                key: "https://img.example/fresh.png", data: Data(count: 3000),
                attributes: EntryAttributes(
                    expiresAt: CachePolicyEvaluator().expirationDate(of: response), etag: "\"f1\"",
                    responseHeaders: response.encoded(), format: "png", pixelWidth: 64, pixelHeight: 32)),
            NewEntry(key: "https://img.example/forever.png", data: Data(count: 1000), attributes: EntryAttributes(format: "png")),
            NewEntry(
                key: "https://img.example/stale.jpg", data: Data(count: 5000),
                attributes: EntryAttributes(expiresAt: now.addingTimeInterval(-3600), etag: "\"s\"", format: "jpeg")),
            NewEntry(
                key: "https://img.example/expired.bin", data: Data(count: 2000),
                attributes: EntryAttributes(expiresAt: now.addingTimeInterval(-7200))),
        ])
        store.close()
        return folder
    }

    @Test("stats counts entries, bytes, formats and fresh, stale and expired entries")
    func stats() async throws {
        let cache = try await Self.populatedCache()
        let result = try await Cachectl.run(["stats", "--json", "--path", cache.url.path])
        #expect(result.status == 0, "\(result)")
        let stats = try result.json(StatsJSON.self)
        #expect(stats.entries == 4)
        #expect(stats.bytes == 11_000)
        #expect(stats.formats["png"]?.entries == 2 && stats.formats["png"]?.bytes == 4000)
        #expect(stats.formats["jpeg"]?.entries == 1)
        #expect(stats.formats["unknown"]?.bytes == 2000)
        #expect((stats.fresh, stats.stale, stats.expired) == (2, 1, 1))
        #expect(stats.byteLimit == 512 * 1024 * 1024)
        #expect(stats.lmdbMapBytes > 0 && stats.sqliteBytes > 0)

        let human = try await Cachectl.run(["stats", "--path", cache.url.path, "--byte-limit", "1MB"])
        #expect(human.output.contains("2 fresh (1 without expiry), 1 stale, 1 expired"), "\(human.output)")
        #expect(human.output.contains("11.0 KB of 1.0 MB (1.1 %, --byte-limit)"), "\(human.output)")
    }

    @Test("list sorts, limits and filters")
    func list() async throws {
        let cache = try await Self.populatedCache()
        let path = ["--path", cache.url.path]
        let largest = try await Cachectl.run(["list", "--sort", "size", "--limit", "2", "--json"] + path).json([EntryRow].self)
        #expect(largest.map(\.key) == ["https://img.example/stale.jpg", "https://img.example/fresh.png"])
        #expect(largest.map(\.freshness) == ["stale", "fresh"])
        let expired = try await Cachectl.run(["list", "--expired", "--json"] + path).json([EntryRow].self)
        #expect(Set(expired.map(\.key)) == ["https://img.example/stale.jpg", "https://img.example/expired.bin"])
        let unknown = try await Cachectl.run(["list", "--format", "unknown", "--json"] + path).json([EntryRow].self)
        #expect(unknown.map(\.key) == ["https://img.example/expired.bin"])
        let table = try await Cachectl.run(["list"] + path)
        #expect(table.output.hasPrefix("key "))
        #expect(table.output.hasSuffix("4 entries, 11.0 KB\n"), "\(table.output)")
    }

    @Test("show gives every field, the freshness verdict with its reason, and the stored headers")
    func show() async throws {
        let cache = try await Self.populatedCache()
        let path = ["--path", cache.url.path]
        let text = try await Cachectl.run(["show", "https://img.example/fresh.png"] + path)
        #expect(text.status == 0, "\(text)")
        #expect(text.output.contains("fresh for 2 h more: max-age=86400, age 21 h"), "\(text.output)")
        #expect(text.output.contains("Cache-Control: max-age=86400"))
        #expect(text.output.contains("ETag           \"f1\""))
        #expect(text.output.contains("64×32"))

        struct Shown: Decodable {
            struct Freshness: Decodable {
                var state: String
                var explanation: String
            }

            var key: String
            var bytes: Int
            var checksum: String
            var freshness: Freshness
        }
        let stale = try await Cachectl.run(["show", "https://img.example/stale.jpg", "--json"] + path).json(Shown.self)
        #expect(stale.freshness.state == "stale")
        #expect(stale.freshness.explanation.contains("revalidatable with ETag \"s\""), "\(stale.freshness.explanation)")
        #expect(stale.checksum.count == 16)
        let expired = try await Cachectl.run(["show", "https://img.example/expired.bin", "--json"] + path).json(Shown.self)
        #expect(expired.freshness.explanation.hasPrefix("expired 2 h ago"), "\(expired.freshness.explanation)")

        let missing = try await Cachectl.run(["show", "https://img.example/nothing"] + path)
        #expect(missing.status == 1)
        #expect(missing.errors.contains("holds no entry"))
    }

    @Test("show names the heuristic's share as the rule book has it, for a response with only Last-Modified")
    func heuristicReason() async throws {
        let folder = TemporaryDirectory("inspection-heuristic")
        let received = Self.now.addingTimeInterval(-3600)
        let response = StoredResponse(
            status: 200,
            headers: [
                "Date": HTTPDate.string(from: received),
                "Last-Modified": HTTPDate.string(from: received.addingTimeInterval(-10 * 86_400)),
            ],
            requestTime: received, responseTime: received)
        let store = try PersistentStore(directory: folder.url)
        try await store.put(
            NewEntry(
                key: "https://img.example/heuristic.png", data: Data(count: 100),
                attributes: EntryAttributes(
                    expiresAt: CachePolicyEvaluator().expirationDate(of: response), responseHeaders: response.encoded())))
        store.close()
        let shown = try await Cachectl.run(["show", "https://img.example/heuristic.png", "--path", folder.url.path])
        #expect(shown.status == 0, "\(shown)")
        let percent = Int(CachePolicyEvaluator().heuristicFraction * 100)
        #expect(shown.output.contains("(\(percent) % of the time since Last-Modified"), "\(shown.output)")
        #expect(shown.output.contains("fresh for"), "\(shown.output)")

        // Stored by an app with its own heuristic settings: explained by those, not the defaults.
        let appRules = CachePolicyEvaluator(heuristicFraction: 0.25, maximumHeuristicLifetime: .seconds(7_200))
        let reopened = try PersistentStore(directory: folder.url)
        try await reopened.put(
            NewEntry(
                key: "https://img.example/own-rules.png", data: Data(count: 100),
                attributes: EntryAttributes(
                    expiresAt: appRules.expirationDate(of: response),
                    responseHeaders: response.encoded(freshness: StoredFreshness(response, evaluator: appRules)))))
        reopened.close()
        let own = try await Cachectl.run(["show", "https://img.example/own-rules.png", "--path", folder.url.path])
        #expect(own.status == 0, "\(own)")
        #expect(own.output.contains("heuristic lifetime 2 h (25 % of the time since Last-Modified, at most 2 h)"), "\(own.output)")
        #expect(!own.output.contains("override"), "\(own.output)")
    }

    @Test("without --path: $SWIFT_IMAGE_CACHE_PATH, else $XDG_CACHE_HOME, else ~/.cache")
    func defaultLocation() async throws {
        let cache = try await Self.populatedCache()
        let viaVariable = try await Cachectl.run(["stats", "--json"], environment: ["SWIFT_IMAGE_CACHE_PATH": cache.url.path])
        #expect(try viaVariable.json(StatsJSON.self).entries == 4)

        let xdg = TemporaryDirectory("xdg")
        let created = try await Cachectl.run(
            ["warm", "--urls", "/dev/null"], environment: ["SWIFT_IMAGE_CACHE_PATH": "", "XDG_CACHE_HOME": xdg.url.path])
        #expect(created.status == 0, "\(created)")
        #expect(FileManager.default.fileExists(atPath: xdg.url.appendingPathComponent("swift-image-cache/blobs/data.mdb").path))

        let home = TemporaryDirectory("home")
        let inHome = try await Cachectl.run(
            ["warm", "--urls", "/dev/null"],
            environment: ["SWIFT_IMAGE_CACHE_PATH": "", "XDG_CACHE_HOME": "", "HOME": home.url.path])
        #expect(inHome.status == 0, "\(inHome)")
        #expect(FileManager.default.fileExists(atPath: home.url.appendingPathComponent(".cache/swift-image-cache/blobs/data.mdb").path))
    }

    @Test("a folder with no cache is an error that says what to do (exit 2), and creates nothing")
    func noCache() async throws {
        let empty = TemporaryDirectory("no-cache")
        let missing = empty.url.appendingPathComponent("missing")
        for command in [["stats"], ["list"], ["show", "k"], ["purge", "--all"], ["export", "--to", empty.url.appendingPathComponent("out").path], ["verify"], ["compact"]] {
            let result = try await Cachectl.run(command + ["--path", missing.path])
            #expect(result.status == 2, "\(command): \(result)")
            #expect(result.errors.contains("There is no cache at \(missing.path); pass --path"), "\(result.errors)")
        }
        #expect(!FileManager.default.fileExists(atPath: missing.path))
    }

    @Test("every subcommand's help has an example")
    func help() async throws {
        for command in ["stats", "list", "show", "purge", "export", "import", "verify", "compact", "warm", "bench"] {
            let result = try await Cachectl.run([command, "--help"])
            #expect(result.status == 0)
            #expect(result.output.contains("Example"), "\(command)")
        }
        let unknown = try await Cachectl.run(["stats", "--no-such-option"])
        #expect(unknown.status == 2)
    }
}
