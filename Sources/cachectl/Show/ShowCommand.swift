import ArgumentParser
import CacheStorage
import Foundation
import HTTPCaching

/// `cachectl show KEY`: everything the cache knows about one entry.
struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one entry: every metadata field, its freshness and why, and its stored headers.",
        discussion: """
            Reading the metadata does not count as a read of the entry (its last access and the \
            hit counters stay as they are). Exits 1 when the cache holds no entry for KEY.

            Example:
              cachectl show 'https://cdn.example.com/avatars/42.png'
            """
    )

    @OptionGroup var store: StoreOptions

    @Argument(help: "The entry's key, exactly (usually its URL).")
    var key: String

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    func run() async throws {
        let now = Date()
        let found = try await store.openExistingStore().use { store in
            try store.metadata(for: key).map { ($0, try VariantGrouping.variants(of: key, in: store)) }
        }
        guard let (metadata, variants) = found else { throw CommandFailure.entryNotFound(key: key) }
        let report = EntryDetails(metadata, variants: variants, now: now)
        if json {
            try JSONOutput.print(report)
        } else {
            Terminal.print(report.text(now: now))
        }
    }
}
