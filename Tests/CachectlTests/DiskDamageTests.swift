import Foundation
import TestSupport
import Testing

/// Damage a disk could do to a cache of real images (random runs of bytes where sectors went
/// bad): what it hands out is the exact bytes or a miss, and the tools report and repair it.
/// Reads of a damaged store run in child processes, so a crash is a finding this process reports.
@Suite("Damage on disk")
struct DiskDamageTests {
    static let imageCount = 40

    static func dataFile(_ cache: TemporaryDirectory) -> URL { cache.url.appendingPathComponent("blobs/data.mdb") }
    static func indexFile(_ cache: TemporaryDirectory) -> URL { cache.url.appendingPathComponent("index.sqlite") }

    /// A cache holding ``imageCount`` generated PNGs imported by `cachectl import`, and the PNGs by key.
    static func importedCache(seed: Int) async throws -> (cache: TemporaryDirectory, images: [String: Data]) {
        let folder = try GeneratedImages.folder(count: imageCount, seed: seed)
        let cache = TemporaryDirectory("damaged-cache")
        let imported = try await GeneratedImages.importInto(cache.url, from: folder.url)
        #expect(imported.status == 0, "\(imported)")
        var images: [String: Data] = [:]
        for number in 1...imageCount {
            images[GeneratedImages.key(number)] = try Data(contentsOf: folder.url.appendingPathComponent("image-\(number).png"))
        }
        return (cache, images)
    }

    /// Writes `runs` runs of 16 random bytes at random offsets from `start` on.
    static func damage(_ file: URL, runs: Int, from start: Int, _ random: inout SeededRandom) throws {
        let size = try #require(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int)
        guard size > start + 16 else { return }
        let handle = try FileHandle(forUpdating: file)
        defer { try? handle.close() }
        for _ in 0..<runs {
            try handle.seek(toOffset: UInt64(start + Int(random.next() % UInt64(size - start - 16))))
            try handle.write(contentsOf: Data((0..<16).map { _ in UInt8(truncatingIfNeeded: random.next()) }))
        }
    }

    /// Files `cachectl export` wrote, by key, read through its manifest.
    static func exported(_ folder: TemporaryDirectory) throws -> [String: Data] {
        let manifest = try JSONDecoder.snakeCase.decode(
            [ManifestRow].self, from: Data(contentsOf: folder.url.appendingPathComponent("manifest.json")))
        var files: [String: Data] = [:]
        for entry in manifest { files[entry.key] = try Data(contentsOf: folder.url.appendingPathComponent(entry.file)) }
        return files
    }

    /// What an app reading every key of a cache got, in a `storage-worker dump` child.
    struct Reads {
        var status: Int32
        var hits: Int
        var entries: Int?
        var listed: Int?
        var summary: String
    }

    /// Reads every key in a child process, checks every hit byte for byte against `images`.
    static func readEverything(_ cache: TemporaryDirectory, keys: [String], images: [String: Data], seed: Int) async throws -> Reads {
        let scratch = TemporaryDirectory("damage-reads")
        let keysFile = scratch.url.appendingPathComponent("keys")
        try Data(keys.joined(separator: "\n").utf8).write(to: keysFile)
        let dumped = scratch.url.appendingPathComponent("dump")
        try FileManager.default.createDirectory(at: dumped, withIntermediateDirectories: true)
        let reader = try await WorkerProcess(
            role: "dump", directory: cache.url,
            environment: ["STORAGE_WORKER_KEYS_FILE": keysFile.path, "STORAGE_WORKER_DUMP": dumped.path])
        let read = await reader.finish()
        var hits = 0
        for (number, key) in keys.enumerated() {
            guard let served = try? Data(contentsOf: dumped.appendingPathComponent("\(number)")) else { continue }
            hits += 1
            #expect(served == images[key], "seed \(seed): \(key) was served damaged bytes")
        }
        let summary = (try? String(contentsOf: dumped.appendingPathComponent("summary"), encoding: .utf8)) ?? ""
        let counts = Dictionary(
            summary.split(separator: " ").compactMap { field -> (String, Int)? in
                let parts = field.split(separator: "=")
                return parts.count == 2 ? (String(parts[0]), Int(parts[1]) ?? -1) : nil
            }, uniquingKeysWith: { $1 })
        return Reads(
            status: read.status, hits: hits, entries: counts["entries"], listed: counts["listed"],
            summary: summary + "\n" + read.output + read.errors)
    }

    /// The seeds of one run: a few in the short form, more under `tools/test --all`, or those
    /// `CACHE_TESTS_DAMAGE_SEEDS` names (`12,21` or `5-84`) for a sweep.
    static var seeds: [Int] {
        if let named = ProcessInfo.processInfo.environment["CACHE_TESTS_DAMAGE_SEEDS"] {
            return named.split(separator: ",").flatMap { part -> [Int] in
                let bounds = part.split(separator: "-").compactMap { Int($0) }
                return bounds.count == 2 ? Array(bounds[0]...bounds[1]) : bounds
            }
        }
        let count = TestScale.current.damagedStores
        guard count > 3 else { return [12, 21, 84] }
        return Array(5..<(5 + count)) + Self.knownHard.filter { $0 >= 5 + count }
    }

    /// Seeds whose damage once took a process down or blocked the index: LMDB faulting as it
    /// reads the tree (12), the pointer tail unreadable (21), the writer faulting as it removes
    /// a damaged entry (53, 62, 83), a records page missing (84). The short form runs 12, 21, 84.
    static let knownHard = [12, 21, 53, 62, 83, 84]

    @Test("random 16-byte runs over data.mdb and index.sqlite: reads give the exact bytes or a miss, stats and list work, verify --repair ends clean")
    func randomDamage() async throws {
        print("damage: \(Self.seeds.count) stores at the \(TestScale.current.name) scale")
        for seed in Self.seeds {
            var random = SeededRandom(seed: UInt64(seed) &* 0x9E37_79B9)
            let (cache, images) = try await Self.importedCache(seed: seed)
            // LMDB's two meta pages are left alone: damage there is the "cannot open" case, moved aside whole.
            try Self.damage(Self.dataFile(cache), runs: 12, from: 2 * 4096, &random)
            try Self.damage(Self.indexFile(cache), runs: 30, from: 100, &random)

            // What an app opening the damaged cache reads, in a child process.
            let keys = images.keys.sorted()
            let damaged = try await Self.readEverything(cache, keys: keys, images: images, seed: seed)
            // Reading and writing a damaged tree can make LMDB fault: the guard turns that into a
            // miss (reads) or stopped writes, and the process goes on.
            #expect(damaged.status == 0, "seed \(seed): the reader ended with \(damaged.status): \(damaged.summary)")
            #expect(damaged.entries != nil && damaged.entries == damaged.listed, "seed \(seed): \(damaged.summary)")

            let path = ["--path", cache.url.path]
            let repaired = try await Cachectl.run(["verify", "--repair"] + path)
            #expect(repaired.status == 0 || repaired.status == 1, "seed \(seed): \(repaired)")
            #expect(!repaired.output.contains("run verify again") && !repaired.errors.contains("verify --repair"), "seed \(seed): \(repaired)")
            let verified = try await Cachectl.run(["verify"] + path)
            #expect(verified.status == 0, "seed \(seed): not clean after repair: \(verified)")
            let stats = try await Cachectl.run(["stats"] + path)
            let list = try await Cachectl.run(["list"] + path)
            #expect(stats.status == 0 && list.status == 0, "seed \(seed): \(stats) \(list)")

            let exportFolder = TemporaryDirectory("damage-export")
            let export = try await Cachectl.run(["export", "--to", exportFolder.url.path] + path)
            #expect(export.status == 0, "seed \(seed): \(export)")
            let files = try Self.exported(exportFolder)
            for (key, bytes) in files { #expect(bytes == images[key], "seed \(seed): \(key) exported damaged bytes") }
            // After the repair, an app reads every entry whole, and nothing else.
            let after = try await Self.readEverything(cache, keys: keys, images: images, seed: seed)
            #expect(after.status == 0, "seed \(seed): the reader ended with \(after.status) after the repair")
            #expect(after.entries == after.hits && after.listed == after.hits, "seed \(seed): \(after.summary)")
            #expect(files.count == after.hits, "seed \(seed)")
            let firstLine = repaired.output.split(separator: "\n").first.map(String.init) ?? ""
            let ending = "\(damaged.entries ?? -1) listed"
            print(
                "damage seed \(seed): \(damaged.hits)/\(keys.count) read whole, \(ending); verify --repair exit \(repaired.status) (\(firstLine)); after it \(after.hits) read whole, \(files.count) exported")
        }
    }

    @Test("export names the entries whose bytes are damaged, writes the rest and exits 1, and its count is true")
    func exportRefusesDamage() async throws {
        let (cache, images) = try await Self.importedCache(seed: 100)
        var file = try Data(contentsOf: Self.dataFile(cache))
        let damagedKeys = [GeneratedImages.key(3), GeneratedImages.key(17)]
        for key in damagedKeys {
            let bytes = try #require(images[key])
            let range = try #require(file.range(of: bytes))
            let middle = range.lowerBound + bytes.count / 2
            file.replaceSubrange(middle..<(middle + 16), with: Data(repeating: 0xA5, count: 16))
        }
        try file.write(to: Self.dataFile(cache))

        let exportFolder = TemporaryDirectory("damage-export")
        let export = try await Cachectl.run(["export", "--to", exportFolder.url.path, "--html", "--path", cache.url.path])
        #expect(export.status == 1, "\(export)")
        #expect(export.output.contains("exported \(Self.imageCount - 2) entries"), "\(export.output)")
        #expect(export.output.contains("not exported: 2 entries are damaged on disk"), "\(export.output)")
        for key in damagedKeys { #expect(export.output.contains("\n  \(key)"), "\(export.output)") }
        #expect(!export.output.contains("another process"), "\(export.output)")
        let files = try Self.exported(exportFolder)
        #expect(Set(files.keys) == Set(images.keys).subtracting(damagedKeys))
        for (key, bytes) in files { #expect(bytes == images[key], "\(key) exported damaged bytes") }

        // The export removed them: what is left verifies clean.
        let verified = try await Cachectl.run(["verify", "--path", cache.url.path])
        #expect(verified.status == 0, "\(verified)")
        let stats = try await Cachectl.run(["stats", "--json", "--path", cache.url.path])
        let counted = try JSONSerialization.jsonObject(with: Data(stats.output.utf8)) as? [String: Any]
        #expect(counted?["damaged_reads_refused"] as? Int == 2, "\(stats)")
        #expect(counted?["entries"] as? Int == Self.imageCount - 2, "\(stats)")
    }
}
