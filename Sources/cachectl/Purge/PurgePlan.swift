import CacheStorage
import Foundation

/// The entries a purge removes, chosen before anything is removed, so `--dry-run` shows exactly
/// what a real run would take.
struct PurgePlan {
    /// The chosen entries, in the order they were chosen, each original's variants after it.
    var victims: [EntryMetadata]
    /// The store's totals when the plan was made.
    var storeEntries: Int
    var storeBytes: Int

    var victimBytes: Int { victims.reduce(0) { $0 + $1.byteCount } }

    /// - Parameters:
    ///   - everything: `--all`: every entry.
    ///   - filters: the entries to consider (all of them when empty).
    ///   - targetBytes: `--to-size`: from the entries considered, take expired ones first (soonest
    ///     expired first), then the least recently read, until the store would hold at most this
    ///     many bytes: the order the store itself evicts in.
    init(store: PersistentStore, everything: Bool, filters: EntryFilters, targetBytes: Int?, now: Date) throws {
        let statistics = try store.statistics()
        storeEntries = statistics.entries
        storeBytes = statistics.bytes
        let considered = try everything ? store.entries() : filters.entries(in: store, now: now)
        guard let targetBytes else {
            // Each original's variants go with it (the store removes them in the same commit).
            victims = try VariantGrouping.grouped(considered, in: store)
            return
        }
        var excess = statistics.bytes - targetBytes
        var chosen = Set<String>()
        victims = []
        for entry in Self.evictionOrder(considered, now: now) where excess > 0 && !chosen.contains(entry.key) {
            let variants = entry.source == nil ? try VariantGrouping.variants(of: entry.key, in: store) : []
            for removed in [entry] + variants where chosen.insert(removed.key).inserted {
                victims.append(removed)
                excess -= removed.byteCount
            }
        }
    }

    /// Expired entries by expiry, soonest first, then the rest by last read, oldest first.
    static func evictionOrder(_ entries: [EntryMetadata], now: Date) -> [EntryMetadata] {
        let (expired, current) = entries.reduce(into: ([EntryMetadata](), [EntryMetadata]())) { parts, entry in
            if entry.isExpired(at: now) { parts.0.append(entry) } else { parts.1.append(entry) }
        }
        return expired.sorted { ($0.attributes.expiresAt ?? now) < ($1.attributes.expiresAt ?? now) }
            + current.sorted { ($0.lastAccess, $0.storedAt) < ($1.lastAccess, $1.storedAt) }
    }
}
