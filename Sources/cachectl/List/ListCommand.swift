import ArgumentParser
import CacheStorage
import Foundation

/// `cachectl list`: the entries, filtered like `purge`, sorted and limited.
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List entries: key, size, format, pixels, when stored and read, expiry, freshness.",
        discussion: """
            Takes the same filters as purge, so `list` with a purge's filters shows what it would \
            remove. --sort orders newest first: access (most recently read), size (largest), \
            stored (most recently stored); without it, entries come by key. Variants (thumbnails \
            the pipeline derived from an image) are listed under their original, marked ↳: a \
            purge of the original removes them too.

            Example:
              cachectl list --host cdn.example.com --larger-than 1MB --sort size --limit 20
            """
    )

    enum SortOrder: String, ExpressibleByArgument, CaseIterable {
        case access, size, stored

        var query: EntryQuery.Order {
            switch self {
            case .access: .mostRecentlyUsed
            case .size: .largest
            case .stored: .newest
            }
        }
    }

    @OptionGroup var store: StoreOptions
    @OptionGroup(title: "Filters") var filters: EntryFilters

    @Option(help: "Order: access, size or stored (newest or largest first).")
    var sort: SortOrder?

    @Option(help: ArgumentHelp("At most this many entries.", valueName: "n"))
    var limit: Int?

    @Flag(help: "Print a JSON array instead of a table.")
    var json = false

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be zero or more") }
    }

    func run() async throws {
        let now = Date()
        let entries = try await store.openExistingStore().use { store in
            try VariantGrouping.grouped(
                filters.entries(in: store, now: now, order: sort?.query ?? .key, limit: limit), in: store)
        }
        if json {
            try JSONOutput.print(entries.map { EntrySummary($0, now: now) })
            return
        }
        var table = TextTable(
            ["key", "size", "format", "pixels", "stored", "read", "expires", "state"],
            alignments: [.left, .right, .left, .right, .left, .left, .left, .left])
        let originals = Set(entries.filter { $0.source == nil }.map(\.key))
        for entry in entries {
            table.append([
                entry.source.map { originals.contains($0.key) } == true
                    ? "  ↳ " + VariantGrouping.label(of: entry).displaySafe(limit: 60) : entry.key.displaySafe(limit: 64),
                ByteSize.format(entry.byteCount), entry.attributes.format ?? "-",
                entry.pixelSizeText, TimeSpan.relative(entry.storedAt, to: now),
                TimeSpan.relative(entry.lastAccess, to: now), entry.expiryText(now: now),
                FreshnessVerdict.state(of: entry, now: now).rawValue,
            ])
        }
        let total = entries.reduce(0) { $0 + $1.byteCount }
        let noun = entries.count == 1 ? "entry" : "entries"
        let variants = entries.filter { $0.source != nil }.count
        let including = variants == 0 ? "" : " (\(variants) of them \(variants == 1 ? "a variant" : "variants") under \(variants == 1 ? "its original" : "their originals"))"
        Terminal.print(
            (entries.isEmpty ? "" : table.render() + "\n\n") + "\(entries.count) \(noun)\(including), \(ByteSize.format(total))")
    }
}
