/// The HTTP cache's own memory tier: entries by key, within a cost and count limit.
struct EntryMemoryTier: HTTPMemoryTier {
    let entries: MemoryCache<String, StoredEntry>

    func entry(for key: String) -> StoredEntry? {
        entries.value(for: key)
    }

    func keep(_ entry: StoredEntry, for key: String, plainReuse: PlainReuse?) {
        entries.set(entry, for: key, cost: entry.cost)
    }

    func remove(_ key: String) {
        entries.removeValue(for: key)
    }
}
