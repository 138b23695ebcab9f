import ArgumentParser
import CacheStorage
import Foundation

/// `cachectl bench`: the standard storage workload against a fresh store.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Run the standard feed workload against a fresh store and print its figures.",
        discussion: """
            Phases: insert every entry (puts of 64 entries per commit), close; open cold (the \
            store's files synced and dropped from the page cache) and warm (the first reopen, \
            and the median of nine); read Zipf(s=1.0)-distributed keys from one task (each \
            read returns the whole blob and records the access); evict least recently used \
            down to 50 % of the bytes while putting new entries one at a time (their latencies \
            are the wait behind eviction). \
            Peak anonymous and file-backed RSS are sampled throughout.
            Build with -c release for meaningful numbers.

            Example:
              swift run -c release cachectl bench --path /tmp/bench --entries 20000 --reads 100000 --json
            """
    )

    @Option(help: "Folder for the benchmark store; its contents are deleted first.")
    var path: String

    @Option(help: "Entries to insert.")
    var entries: Int = 20_000

    @Option(help: "Reads in the read phase.")
    var reads: Int = 100_000

    @Option(help: "Seed for sizes, bytes and the read sequence.")
    var seed: UInt64 = 42

    @Option(help: "Entry sizes: feed (8 KiB–1 MiB, mean ≈ 93 KB), thumbs (4–40 KiB, downsampled images), tiny (1–4 KiB), 4k or 100k (every entry that size).")
    var sizes: String = FeedWorkload.Sizes.feed.rawValue

    @Option(help: "Durability: periodic (the default, synced every second), each-commit or full.")
    var durability: String = "periodic"

    @Option(help: "Entries per put call during the insert phase.")
    var batch: Int = 64

    @Flag(help: "Also run the same workload on a file-per-entry store and into raw LMDB (no sync), and print all three, with ratios.")
    var baseline = false

    @Flag(help: "With --baseline, run the baselines before the store instead of after it (alternate the two orders across runs, so neither side always runs on a page cache and disk the other has just used).")
    var baselineFirst = false

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    @Flag(help: "Keep the store afterwards instead of deleting it.")
    var keep = false

    func validate() throws {
        guard FeedWorkload.Sizes(rawValue: sizes) != nil else {
            throw ValidationError("--sizes must be one of: \(FeedWorkload.Sizes.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard ["periodic", "each-commit", "full"].contains(durability) else {
            throw ValidationError("--durability must be periodic, each-commit or full")
        }
        guard entries > 0, reads >= 0, batch > 0 else { throw ValidationError("--entries and --batch must be positive") }
        guard baseline || !baselineFirst else { throw ValidationError("--baseline-first needs --baseline") }
    }

    func run() async throws {
        let folder = URL(fileURLWithPath: path, isDirectory: true)
        try? FileManager.default.removeItem(at: folder)
        var workload = FeedWorkload(entries: entries, sizes: FeedWorkload.Sizes(rawValue: sizes)!, seed: seed)
        var configuration = StoreConfiguration()
        configuration.byteLimit = max(workload.totalBytes * 2, 64 << 20)
        configuration.maxEntryBytes = 2 << 20
        configuration.durability =
            switch durability {
            case "full": .full
            case "each-commit": .eachCommit
            default: .standard
            }
        guard baseline else {
            let report = try await runStore(&workload, in: folder, configuration: configuration)
            if !keep { try? FileManager.default.removeItem(at: folder) }
            print(json ? report.json() : report.table())
            return
        }
        defer { if !keep { try? FileManager.default.removeItem(at: folder) } }
        var report = BenchReport()
        if !baselineFirst { report = try await runStore(&workload, in: folder, configuration: configuration) }
        // Each workload starts with no one else's dirty pages waiting for the disk: write-back of
        // the previous workload's gigabytes would otherwise throttle the next one's inserts.
        sync()
        var again = FeedWorkload(entries: entries, sizes: FeedWorkload.Sizes(rawValue: sizes)!, seed: seed)
        var files = try FilePerEntryBaseline(folder: folder.appendingPathComponent("file-per-entry")).run(&again, reads: reads)
        files.durability = "none (no fsync)"
        files.sizes = sizes
        sync()
        var once = FeedWorkload(entries: entries, sizes: FeedWorkload.Sizes(rawValue: sizes)!, seed: seed)
        var raw = try RawLMDBBaseline(folder: folder.appendingPathComponent("raw-lmdb"), batch: batch).run(&once, reads: reads)
        raw.durability = "none (MDB_NOSYNC)"
        raw.sizes = sizes
        if baselineFirst { report = try await runStore(&workload, in: folder.appendingPathComponent("store"), configuration: configuration) }
        if json {
            print(
                "{\"store\": \(report.json()), \"file_per_entry\": \(files.json()), \"ratios\": \(report.ratios(to: files)), "
                    + "\"raw_lmdb\": \(raw.json()), \"ratios_raw_lmdb\": \(report.ratios(toFloor: raw))}")
        } else {
            print("store\n" + report.table() + "\n\nfile per entry (same workload, same run)\n" + files.table())
            print("\nratios store / file-per-entry: \(report.ratios(to: files))")
            print("\nraw LMDB, inserts and reads only (same workload, same run)\n" + raw.table())
            print("\nratios store / raw LMDB: \(report.ratios(toFloor: raw))")
        }
    }

    /// The store's run of the workload, after a `sync`, with its peak memory.
    private func runStore(_ workload: inout FeedWorkload, in folder: URL, configuration: StoreConfiguration) async throws -> BenchReport {
        var memory = PeakMemory()
        sync()
        var report = try await BenchRunner(
            folder: folder, configuration: configuration, batch: batch, reads: reads
        ).run(&workload, memory: &memory)
        report.peakAnonymousRSSMegabytes = Double(memory.peakBytes) / 1_048_576
        report.peakFileRSSMegabytes = Double(memory.peakFileBytes) / 1_048_576
        report.peakAnonymousRSSMegabytesByPhase = memory.peakBytesByPhase.map { ($0.phase, Double($0.bytes) / 1_048_576) }
        report.durability = durability
        report.sizes = sizes
        return report
    }
}
