import ArgumentParser
import CacheStorage
import Foundation

/// The entry filters `list`, `purge` and `export` share. Every filter given must hold (AND).
struct EntryFilters: ParsableArguments {
    @Flag(help: "Entries whose expiry has passed (stale or expired; see `cachectl stats --help`).")
    var expired = false

    @Option(
        help: ArgumentHelp("Entries stored more than this long ago: 30m, 12h, 7d, 1h30m.", valueName: "duration"),
        transform: TimeSpan.parse)
    var olderThan: TimeInterval?

    @Option(
        help: ArgumentHelp("Entries not read for this long: 30m, 12h, 7d.", valueName: "duration"),
        transform: TimeSpan.parse)
    var unusedFor: TimeInterval?

    @Option(help: ArgumentHelp("Entries whose key is a URL on this host (any scheme and port).", valueName: "host"))
    var host: String?

    @Option(help: ArgumentHelp("Entries whose key starts with this string.", valueName: "key-prefix"))
    var prefix: String?

    @Option(
        help: ArgumentHelp("Entries larger than this: 800, 500KB, 5MB, 1.5GiB.", valueName: "size"),
        transform: ByteSize.parse)
    var largerThan: Int?

    @Option(help: ArgumentHelp("Entries recorded with this format: png, jpeg, webp, unknown …", valueName: "format"))
    var format: String?

    /// Whether no filter was given.
    var isEmpty: Bool {
        !expired && olderThan == nil && unusedFor == nil && host == nil && prefix == nil && largerThan == nil
            && format == nil
    }

    /// The store query for these filters at `now`, in `order`.
    func query(now: Date, order: EntryQuery.Order = .key, limit: Int? = nil) -> EntryQuery {
        EntryQuery(
            keyPrefix: prefix, host: host, expiredAt: expired ? now : nil,
            storedBefore: olderThan.map { now.addingTimeInterval(-$0) },
            accessedBefore: unusedFor.map { now.addingTimeInterval(-$0) },
            largerThanBytes: largerThan,
            format: format == "unknown" ? nil : format,
            order: order, limit: format == "unknown" ? nil : limit)
    }

    /// The entries these filters select, read from the index at `now`.
    ///
    /// `--format unknown` means entries stored without a format, which the index query cannot
    /// express, so those are filtered here (and the limit applied after).
    func entries(in store: PersistentStore, now: Date, order: EntryQuery.Order = .key, limit: Int? = nil) throws
        -> [EntryMetadata]
    {
        let listed = try store.entries(matching: query(now: now, order: order, limit: limit))
        guard format == "unknown" else { return listed }
        let unknown = listed.filter { $0.attributes.format == nil }
        return limit.map { Array(unknown.prefix($0)) } ?? unknown
    }
}
