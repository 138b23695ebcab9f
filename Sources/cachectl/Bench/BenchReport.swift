import Foundation

/// The figures `cachectl bench` prints.
struct BenchReport {
    /// Phases a baseline does not run, left out of its table rather than printed as zeros.
    enum Phase { case open, eviction, putsDuringEviction, memory }
    var unmeasured: Set<Phase> = []
    var entries = 0
    var bytes = 0
    var reads = 0
    var durability = ""
    var sizes = ""
    var insertSeconds = 0.0
    /// Warm: the files in the page cache. The first reopen after the cold one.
    var openMilliseconds = 0.0
    /// The median of that reopen and eight more, each after closing the one before: the first
    /// alone is one sample, and may also pay for memory the allocator hands out for the first
    /// time (see `LayoutProbe/env-open.c` in Benchmarks/README.md); nil where only one open is measured.
    var openWarmMedianMilliseconds: Double?
    /// After the store's files were dropped from the page cache; nil where that cannot be done.
    var openColdMilliseconds: Double?
    var readSeconds = 0.0
    var readMisses = 0
    /// Faults the reads waited on the disk for (see ``ProcessMemory/majorFaults()``).
    var readMajorFaults = 0
    var bytesRead = 0
    var readP50Microseconds = 0.0
    var readP99Microseconds = 0.0
    /// Raw LMDB only: a guarded read's time over an unguarded one's (see `RawLMDBBaseline`).
    var guardedReadCost: Double?
    var evictMilliseconds = 0.0
    var evictedEntries = 0
    /// Faults the process waited on the disk for while the eviction ran.
    var evictMajorFaults = 0
    /// Puts issued one after another while the eviction ran, and how long each took.
    var putsDuringEviction = 0
    var putDuringEvictionP50Milliseconds = 0.0
    var putDuringEvictionP99Milliseconds = 0.0
    var putDuringEvictionMaxMilliseconds = 0.0
    var peakAnonymousRSSMegabytes = 0.0
    var peakFileRSSMegabytes = 0.0
    /// Peak anonymous RSS in each phase (the harness's own first), in order.
    var peakAnonymousRSSMegabytesByPhase: [(phase: String, megabytes: Double)] = []

    var insertsPerSecond: Double { insertSeconds > 0 ? Double(entries) / insertSeconds : 0 }
    var readsPerSecond: Double { readSeconds > 0 ? Double(reads) / readSeconds : 0 }

    func json() -> String {
        let fields: [(String, String)] = [
            ("entries", "\(entries)"), ("bytes", "\(bytes)"), ("reads", "\(reads)"),
            ("durability", "\"\(durability)\""), ("sizes", "\"\(sizes)\""),
            ("insert_per_s", format(insertsPerSecond, 1)), ("insert_mb_per_s", format(Double(bytes) / 1e6 / max(insertSeconds, 1e-9), 1)),
            ("open_ms", format(openMilliseconds, 3)), ("open_cold_ms", openColdMilliseconds.map { format($0, 3) } ?? "null"),
            ("open_warm_median_ms", openWarmMedianMilliseconds.map { format($0, 3) } ?? "null"),
            ("read_per_s", format(readsPerSecond, 1)), ("read_p50_us", format(readP50Microseconds, 2)),
            ("read_p99_us", format(readP99Microseconds, 2)), ("read_misses", "\(readMisses)"),
            ("read_major_faults", "\(readMajorFaults)"),
            ("guarded_read_cost", guardedReadCost.map { format($0, 3) } ?? "null"),
            ("evict_ms", format(evictMilliseconds, 2)), ("evicted_entries", "\(evictedEntries)"),
            ("evict_major_faults", "\(evictMajorFaults)"),
            ("puts_during_evict", "\(putsDuringEviction)"), ("put_during_evict_p50_ms", format(putDuringEvictionP50Milliseconds, 3)),
            ("put_during_evict_p99_ms", format(putDuringEvictionP99Milliseconds, 3)),
            ("put_during_evict_max_ms", format(putDuringEvictionMaxMilliseconds, 3)),
            ("peak_rss_mb", format(peakAnonymousRSSMegabytes, 1)), ("peak_file_rss_mb", format(peakFileRSSMegabytes, 1)),
            ("peak_rss_mb_by_phase", "{" + peakAnonymousRSSMegabytesByPhase.map { "\"\($0.phase)\": \(format($0.megabytes, 1))" }.joined(separator: ", ") + "}"),
        ]
        return "{" + fields.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}"
    }

    func table() -> String {
        var rows: [(String, String)] = [
            ("entries", "\(entries) (\(format(Double(bytes) / 1e9, 2)) GB, sizes \(sizes))"),
            ("durability", durability),
            ("insert", "\(format(insertsPerSecond, 0)) entries/s (\(format(Double(bytes) / 1e6 / max(insertSeconds, 1e-9), 0)) MB/s)"),
        ]
        if !unmeasured.contains(.open) {
            let median = openWarmMedianMilliseconds.map { " (median of nine: \(format($0, 2)) ms)" } ?? ""
            rows.append(("open", "\(format(openMilliseconds, 2)) ms warm\(median), " + (openColdMilliseconds.map { "\(format($0, 2)) ms cold" } ?? "cold not measured")))
        }
        rows.append(("read", "\(format(readsPerSecond, 0)) reads/s, p50 \(format(readP50Microseconds, 1)) µs, p99 \(format(readP99Microseconds, 1)) µs, \(readMisses) misses, \(readMajorFaults) major faults"))
        if let guardedReadCost {
            rows.append(("guarded read", "\(format(guardedReadCost, 3))× the time of an unguarded get (median of three pairs, both orders)"))
        }
        if !unmeasured.contains(.eviction) {
            rows.append(("evict to 50 %", "\(format(evictMilliseconds, 1)) ms (\(evictedEntries) entries, \(evictMajorFaults) major faults)"))
        }
        if !unmeasured.contains(.putsDuringEviction) {
            rows.append(("puts during it", "\(putsDuringEviction), p50 \(format(putDuringEvictionP50Milliseconds, 2)) ms, p99 \(format(putDuringEvictionP99Milliseconds, 2)) ms, max \(format(putDuringEvictionMaxMilliseconds, 2)) ms"))
        }
        if !unmeasured.contains(.memory) {
            rows.append(("peak RSS", "\(format(peakAnonymousRSSMegabytes, 1)) MB anonymous, \(format(peakFileRSSMegabytes, 1)) MB file-backed"))
            if !peakAnonymousRSSMegabytesByPhase.isEmpty {
                rows.append(("  by phase", peakAnonymousRSSMegabytesByPhase.map { "\($0.phase) \(format($0.megabytes, 1))" }.joined(separator: ", ") + " MB anonymous"))
            }
        }
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.1 }.joined(separator: "\n")
    }

    /// Speed-ups over `baseline` (above 1 is better for this report), as a JSON object.
    func ratios(to baseline: BenchReport) -> String {
        "{\"insert\": \(ratio(insertsPerSecond, baseline.insertsPerSecond)), "
            + "\"read\": \(ratio(readsPerSecond, baseline.readsPerSecond)), "
            + "\"read_p99\": \(ratio(baseline.readP99Microseconds, readP99Microseconds)), "
            + "\"open\": \(ratio(baseline.openMilliseconds, openMilliseconds)), "
            + "\"evict\": \(ratio(baseline.evictMilliseconds, evictMilliseconds))}"
    }

    /// The fractions of a floor's speed this report reaches (raw LMDB: inserts and reads only).
    func ratios(toFloor floor: BenchReport) -> String {
        "{\"insert\": \(ratio(insertsPerSecond, floor.insertsPerSecond)), "
            + "\"read\": \(ratio(readsPerSecond, floor.readsPerSecond))}"
    }

    /// `mine` over `theirs`, to two decimals; below 0.01 to three significant digits, so a run on a
    /// loaded machine that falls to a few thousandths of the other is not printed as 0.
    private func ratio(_ mine: Double, _ theirs: Double) -> String {
        let value = theirs > 0 ? mine / theirs : 0
        return value == 0 || value >= 0.01 ? format(value, 2) : String(format: "%.3g", value)
    }

    private func format(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }
}
