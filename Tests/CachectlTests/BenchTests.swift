import Foundation
import TestSupport
import Testing

/// `cachectl bench` runs every phase and reports every figure (the figures themselves are for
/// benchmarks, not tests: only their presence and consistency are checked here).
@Suite("bench")
struct BenchTests {
    struct Report: Decodable {
        var entries: Int
        var insertPerS: Double
        var openMs: Double
        var openColdMs: Double?
        var reads: Int
        var readMisses: Int
        /// Decoded (not optional) to prove it is reported; how many is the machine's (a fresh
        /// store's pages are all in memory, but nothing keeps them there), so no value is asserted.
        var readMajorFaults: Int
        var evictedEntries: Int
        var evictMajorFaults: Int
        var putsDuringEvict: Int
        var putDuringEvictP50Ms: Double
        var putDuringEvictMaxMs: Double
        var peakRssMb: Double
        var peakFileRssMb: Double
        var peakRssMbByPhase: [String: Double]?
    }

    @Test("a small thumbnail run reports inserts, cold and warm open, reads, eviction with puts beside it, and both kinds of RSS")
    func thumbs() async throws {
        let folder = TemporaryDirectory("bench")
        let run = try await Cachectl.run([
            "bench", "--path", folder.url.appendingPathComponent("store").path, "--entries", "400", "--reads", "400",
            "--sizes", "thumbs", "--json",
        ])
        #expect(run.status == 0, "\(run)")
        let report = try run.json(Report.self)
        #expect(report.entries == 400)
        #expect(report.insertPerS > 0 && report.openMs > 0)
        #if os(Linux)
        #expect((report.openColdMs ?? 0) > 0, "cold open not measured")
        #endif
        #expect(report.reads == 400 && report.readMisses == 0)
        // Evicting to half the bytes of 400 entries of similar sizes takes about half of them.
        #expect((100...300).contains(report.evictedEntries), "\(report.evictedEntries) entries evicted")
        #expect(report.putsDuringEvict >= 1)
        #expect(report.putDuringEvictMaxMs >= report.putDuringEvictP50Ms)
        #expect(report.peakRssMb > 0 && report.peakFileRssMb > 0)
        let phases = try #require(report.peakRssMbByPhase)
        #expect(Set(phases.keys) == ["harness", "insert", "open", "read", "evict"])
        #expect(phases.values.allSatisfy { $0 > 0 && $0 <= report.peakRssMb }, "\(phases)")
    }

    struct BaselineRun: Decodable {
        struct Floor: Decodable {
            var insert: Double
            var read: Double
        }
        var store: Report
        var filePerEntry: Report
        var rawLmdb: Report
        var ratiosRawLmdb: Floor
    }

    @Test("--baseline runs the same workload on files and into raw LMDB, reads every key back from each, and gives the ratios, in either order",
          arguments: [false, true])
    func baselines(baselineFirst: Bool) async throws {
        let folder = TemporaryDirectory("bench-baseline")
        let store = folder.url.appendingPathComponent("store")
        let run = try await Cachectl.run([
            "bench", "--path", store.path, "--entries", "300", "--reads", "300", "--sizes", "tiny", "--baseline", "--json",
        ] + (baselineFirst ? ["--baseline-first"] : []))
        #expect(run.status == 0, "\(run)")
        let report = try run.json(BaselineRun.self)
        for each in [report.store, report.filePerEntry, report.rawLmdb] {
            #expect(each.entries == 300)
            #expect(each.insertPerS > 0)
            #expect(each.readMisses == 0)
        }
        #expect(report.ratiosRawLmdb.insert > 0 && report.ratiosRawLmdb.read > 0)
        #expect(!FileManager.default.fileExists(atPath: store.path), "the benchmark left its files behind")
    }

    @Test("an unknown size mix is refused with the choices")
    func unknownSizes() async throws {
        let folder = TemporaryDirectory("bench-sizes")
        let run = try await Cachectl.run(["bench", "--path", folder.url.path, "--sizes", "huge"])
        #expect(run.status != 0)
        #expect(run.errors.contains("feed") && run.errors.contains("thumbs") && run.errors.contains("tiny"), "\(run)")
    }
}
