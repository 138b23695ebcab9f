import CacheStorage
import Foundation

/// The figures `cachectl stats` prints, in the shape of its `--json` output.
struct StatsReport: Encodable {
    struct FormatUsage: Encodable {
        var entries: Int
        var bytes: Int
    }

    var path: String
    var entries: Int
    var bytes: Int
    /// Of `entries` and `bytes`: variants derived from other entries (thumbnails of originals).
    var variantEntries: Int
    var variantBytes: Int
    var formats: [String: FormatUsage]
    var fresh: Int
    var stale: Int
    var expired: Int
    var withoutExpiry: Int
    var oldestAccess: Date?
    var newestAccess: Date?
    var largest: [EntrySummary]
    var byteLimit: Int
    /// `"--byte-limit"` when given, else `"library default"`.
    var byteLimitSource: String
    var byteUsage: Double
    var entryLimit: Int?
    var lmdbMapBytes: Int
    var lmdbUsedBytes: Int
    var sqliteBytes: Int
    var hits: Int
    var misses: Int
    /// Unusable stores (damaged, or of another version's format) opening moved aside into
    /// `quarantine/` and replaced by this one.
    var storesMovedAside: Int
    /// Reads refused because the entry's bytes were damaged on disk (see `StoreStatistics`).
    var damagedReadsRefused: Int
    /// `writable`, `disk full: writes paused` or `read-only (…)`.
    var writes: String
    /// The limit the store enforces now: the app's byte limit, or less when the volume cannot spare it.
    var effectiveByteLimit: Int
    /// `"byte limit"` or `"free space"`: which one sets ``effectiveByteLimit``.
    var limitInForce: String
    var volumeBytes: Int?
    var volumeAvailableBytes: Int?

    init(
        statistics: StoreStatistics, expiredEntries: [EntryMetadata], now: Date, path: String, byteLimit: Int?,
        entryLimit: Int?
    ) {
        self.path = path
        entries = statistics.entries
        bytes = statistics.bytes
        formats = statistics.formats.mapValues { FormatUsage(entries: $0.entries, bytes: $0.bytes) }
        variantEntries = statistics.derivedEntries
        variantBytes = statistics.derivedBytes
        stale = expiredEntries.filter(FreshnessVerdict.hasValidator).count
        expired = expiredEntries.count - stale
        // The totals and the listing are two reads while other processes may write: never below zero.
        fresh = max(0, statistics.entries - expiredEntries.count)
        withoutExpiry = statistics.entriesWithoutExpiry
        oldestAccess = statistics.oldestAccess
        newestAccess = statistics.newestAccess
        largest = statistics.largestEntries.map { EntrySummary($0, now: now) }
        self.byteLimit = byteLimit ?? StoreConfiguration().byteLimit
        byteLimitSource = byteLimit == nil ? "library default" : "--byte-limit"
        byteUsage = self.byteLimit > 0 ? Double(statistics.bytes) / Double(self.byteLimit) : 0
        self.entryLimit = entryLimit
        lmdbMapBytes = statistics.mapBytes
        lmdbUsedBytes = statistics.mapUsedBytes
        sqliteBytes = statistics.indexFileBytes
        hits = statistics.hits
        misses = statistics.misses
        storesMovedAside = statistics.storesMovedAside
        damagedReadsRefused = statistics.damagedReadsRefused
        writes = statistics.writeStatus.description
        volumeBytes = statistics.volumeBytes
        volumeAvailableBytes = statistics.volumeAvailableBytes
        // cachectl opens with no limit of its own: apply the library's default free-space rule
        // to the app's limit here, as an app with the default configuration would.
        if let total = statistics.volumeBytes, let available = statistics.volumeAvailableBytes {
            effectiveByteLimit = DiskSpacePolicy.standard.effectiveByteLimit(
                configuredLimit: self.byteLimit, storeBytes: statistics.bytes, volumeBytes: total,
                availableBytes: available)
        } else {
            effectiveByteLimit = self.byteLimit
        }
        limitInForce = effectiveByteLimit < self.byteLimit ? "free space" : "byte limit"
    }

    func table(now: Date) -> String {
        let reads = hits + misses
        let hitRate = reads > 0 ? String(format: ", %.1f %% hits", Double(hits) * 100 / Double(reads)) : ""
        var limits = "\(ByteSize.format(bytes)) of \(ByteSize.format(byteLimit)) (\(percent(byteUsage)), \(byteLimitSource))"
        if let entryLimit, entryLimit > 0 {
            limits += "; \(entries) of \(entryLimit) entries (\(percent(Double(entries) / Double(entryLimit))))"
        }
        var pairs: [(String, String)] = [
            ("cache", path),
            ("entries", "\(entries)" + (variantEntries > 0 ? " (\(variantEntries) variants of other entries)" : "")),
            ("bytes", ByteSize.format(bytes) + (variantEntries > 0 ? " (\(ByteSize.format(variantBytes)) in variants)" : "")),
            ("freshness", "\(fresh) fresh (\(withoutExpiry) without expiry), \(stale) stale, \(expired) expired"),
            ("last access", "oldest \(oldestAccess.map { TimeSpan.relative($0, to: now) } ?? "-"), newest \(newestAccess.map { TimeSpan.relative($0, to: now) } ?? "-")"),
            ("limits", limits),
            ("in force", "\(ByteSize.format(effectiveByteLimit)) (\(limitInForce == "free space" ? "set by the volume's free space" : "the byte limit"))"),
            ("volume", volumeAvailableBytes.map { available in "\(ByteSize.format(available)) free of \(volumeBytes.map(ByteSize.format) ?? "?")" } ?? "-"),
            ("writes", writes),
            ("LMDB", "\(ByteSize.format(lmdbUsedBytes)) used of a \(ByteSize.format(lmdbMapBytes)) map"),
            ("SQLite index", ByteSize.format(sqliteBytes)),
            ("reads", "\(hits) hits, \(misses) misses\(hitRate)"
                + (damagedReadsRefused > 0 ? ", \(damagedReadsRefused) refused as damaged" : "")),
        ]
        if storesMovedAside > 0 {
            pairs.append(("replaced", "\(storesMovedAside) unusable store(s) moved into quarantine/, this one started empty"))
        }
        var lines = TextTable.pairs(pairs)
        if !formats.isEmpty {
            var table = TextTable(["format", "entries", "bytes"], alignments: [.left, .right, .right])
            for (name, usage) in formats.sorted(by: { ($0.value.bytes, $0.key) > ($1.value.bytes, $1.key) }) {
                table.append([name, "\(usage.entries)", ByteSize.format(usage.bytes)])
            }
            lines += "\n\n" + table.render()
        }
        if !largest.isEmpty {
            var table = TextTable(["largest", "size", "format", "pixels"], alignments: [.left, .right, .left, .right])
            for entry in largest {
                table.append([entry.key.displaySafe(limit: 70), ByteSize.format(entry.bytes), entry.format ?? "-", entry.pixelSizeText])
            }
            lines += "\n\n" + table.render()
        }
        return lines
    }

    private func percent(_ fraction: Double) -> String {
        String(format: fraction < 0.1 ? "%.1f %%" : "%.0f %%", fraction * 100)
    }
}
