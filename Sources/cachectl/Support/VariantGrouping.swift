import CacheStorage

/// Entries with the variants derived from them (thumbnails under their original), as `list`,
/// `show` and `purge` present them: the store removes a variant with its original, so a listing
/// shows them together and a purge counts them together.
enum VariantGrouping {
    /// `entries` in their order, each original followed by the variants derived from it; a
    /// variant listed under its original is not listed again on its own.
    static func grouped(_ entries: [EntryMetadata], in store: PersistentStore) throws -> [EntryMetadata] {
        var shown = Set<String>()
        var result: [EntryMetadata] = []
        let listedOriginals = Set(entries.filter { $0.source == nil }.map(\.key))
        for entry in entries {
            if let source = entry.source, listedOriginals.contains(source.key) { continue }
            guard shown.insert(entry.key).inserted else { continue }
            result.append(entry)
            guard entry.source == nil else { continue }
            for variant in try variants(of: entry.key, in: store) where shown.insert(variant.key).inserted {
                result.append(variant)
            }
        }
        return result
    }

    /// The variants derived from the entry under `key`, by key.
    static func variants(of key: String, in store: PersistentStore) throws -> [EntryMetadata] {
        try store.entries(matching: EntryQuery(derivedFrom: key))
    }

    /// How a variant's key reads under its original: the part after the original's key, when the
    /// key is built that way, else the whole key.
    static func label(of variant: EntryMetadata) -> String {
        guard let source = variant.source?.key, variant.key.hasPrefix(source + " ") else { return variant.key }
        return String(variant.key.dropFirst(source.count + 1))
    }
}
