import ArgumentParser
import CacheStorage
import Foundation

/// `cachectl stats`: what the cache holds and how it is used.
struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show entries, bytes, formats, freshness, limits, file sizes and hit counters.",
        discussion: """
            Freshness, from the expiry the app recorded with each entry:
              fresh    no expiry, or the expiry is still ahead
              stale    expired, but revalidatable: it has an ETag or Last-Modified (a 304 costs headers, not bytes)
              expired  expired with no validator: it will be downloaded again

            Limits belong to each app's configuration, not to the cache, so usage is shown against \
            --byte-limit (the library's default, 512 MiB, unless given).

            Example:
              cachectl stats --path /var/cache/myapp/images --byte-limit 200MiB --json
            """
    )

    @OptionGroup var store: StoreOptions

    @Option(
        help: ArgumentHelp("The app's byte limit, to show usage against: 200MiB, 1GB.", valueName: "size"),
        transform: ByteSize.parse)
    var byteLimit: Int?

    @Option(help: ArgumentHelp("The app's entry limit, to show usage against.", valueName: "count"))
    var entryLimit: Int?

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    func run() async throws {
        let now = Date()
        let report = try await store.openExistingStore().use { store in
            let statistics = try store.statistics()
            // Only expired entries need a closer look (for a validator), so list just those.
            let expired = try store.entries(matching: EntryQuery(expiredAt: now))
            return StatsReport(
                statistics: statistics, expiredEntries: expired, now: now, path: store.directory.path,
                byteLimit: byteLimit, entryLimit: entryLimit)
        }
        if json {
            try JSONOutput.print(report)
        } else {
            Terminal.print(report.table(now: now))
        }
    }
}
