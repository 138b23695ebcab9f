import ArgumentParser
import CacheStorage
import Foundation
import HTTPCaching

/// `cachectl warm`: fetches URLs through the image pipeline into the cache.
struct WarmCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "warm",
        abstract: "Fetch a list of URLs through the image pipeline (persistent policy) into the cache.",
        discussion: """
            FILE holds one URL per line; blank lines and lines starting with # are skipped; - reads \
            standard input. Each URL is loaded as an app would load it with the persistent policy: \
            a fresh cached copy is kept, a stale one revalidated, anything else fetched, validated \
            and stored as its HTTP headers allow.

            Reports successes (fetched, revalidated, already cached), refusals (not an image, too \
            large, or a response that may not be stored) and failures (HTTP errors, network). Exits \
            1 when any URL was refused or failed. Creates the cache when it does not exist.

            Example:
              cachectl warm --urls feed-urls.txt --concurrency 8
            """
    )

    @OptionGroup var store: StoreOptions

    @Option(help: ArgumentHelp("A file with one URL per line (- for standard input).", valueName: "file"))
    var urls: String

    @Option(help: ArgumentHelp("URLs fetched at once.", valueName: "n"))
    var concurrency = 6

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    func validate() throws {
        guard (1...64).contains(concurrency) else { throw ValidationError("--concurrency must be between 1 and 64") }
    }

    func run() async throws {
        let requests = try WarmList.read(urls)
        let concurrency = concurrency
        let report = try await store.openOrCreateStore().use { store in
            await WarmRun(store: store, concurrency: concurrency).perform(requests)
        }
        if json {
            try JSONOutput.print(report)
        } else {
            Terminal.print(report.text())
        }
        if !report.refused.isEmpty || !report.failed.isEmpty { throw CommandFailure.problemsReported }
    }
}

/// The URL list `warm` reads.
enum WarmList {
    /// One line of the list: a URL, or the text that is not one.
    enum Line {
        case url(URL)
        case invalid(String)
    }

    static func read(_ path: String) throws(CommandFailure) -> [Line] {
        // A file handle reads pipes, devices and process substitutions as well as plain files.
        let handle = path == "-" ? FileHandle.standardInput : FileHandle(forReadingAtPath: path)
        guard let handle else {
            throw .fileSystem(path: path, action: "read the URL list", reason: "no such readable file")
        }
        let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        return text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
            .map { line in
                guard let url = URL(string: line), ["http", "https"].contains(url.scheme?.lowercased()), url.host != nil
                else { return .invalid(line) }
                return .url(url)
            }
    }
}
