import ArgumentParser
import CacheStorage
import Foundation
import HTTPCaching

/// `cachectl import`: image files, or a previous export, into entries.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Turn image files, or an export with its manifest, into cache entries.",
        discussion: """
            With DIR/manifest.json (an export), each file goes back in under its recorded key with \
            its recorded ETag, expiry, Last-Modified and stored response (stored_at and \
            last_access become now). Otherwise every file under DIR (hidden ones skipped) goes in \
            under --base-url + its path relative to DIR, with a stored response the pipeline can \
            use: the file's modification time as Last-Modified and, with --max-age, \
            Cache-Control: max-age; without --max-age, freshness is HTTP's heuristic (10 % of the \
            file's age), after which the entry is stale but revalidatable.

            Every file is validated first; one that is not an acceptable image is refused with the \
            reason and the rest still go in. Exits 1 when any file was refused. Creates the cache \
            when it does not exist.

            Examples:
              cachectl import ./images --base-url https://cdn.example.com/images --max-age 7d
              cachectl import ~/cache-export --path /tmp/restored-cache
            """
    )

    @OptionGroup var store: StoreOptions

    @Argument(help: "The folder to import from.")
    var folder: String

    @Option(help: ArgumentHelp("Prefix for keys of files imported without a manifest.", valueName: "url"))
    var baseURL: String?

    @Option(
        help: ArgumentHelp("How long imported files stay fresh: 30m, 12h, 7d.", valueName: "duration"),
        transform: TimeSpan.parse)
    var maxAge: TimeInterval?

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    func run() async throws {
        let source = URL(fileURLWithPath: folder, isDirectory: true)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: source.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CommandFailure.fileSystem(path: source.path, action: "import from", reason: "no such folder")
        }
        let items = try ImportSource(folder: source, baseURL: baseURL)
        if items.usesManifest && (baseURL != nil || maxAge != nil) {
            throw ValidationError(
                "\(source.path) holds an export's manifest, which restores each entry's key and expiry; leave out --base-url and --max-age, or move manifest.json away")
        }
        let report = try await store.openOrCreateStore().use { store in
            try await ImportRun(store: store, maxAge: maxAge).perform(items)
        }
        if json {
            try JSONOutput.print(report)
        } else {
            Terminal.print(report.text(into: store.directory.path))
        }
        if !report.refused.isEmpty { throw CommandFailure.problemsReported }
    }
}

/// What `import` did.
struct ImportReport: Encodable {
    struct Refusal: Encodable, Error {
        var file: String
        /// The validation stage that refused it (`sniff`, `header`, `policy`, `structure`), or `store`.
        var stage: String
        var reason: String
    }

    var manifest: Bool
    var imported: Int
    var bytes: Int
    var refused: [Refusal]

    func text(into path: String) -> String {
        let total = imported + refused.count
        var text = "imported \(imported) of \(total) files (\(ByteSize.format(bytes))) into \(path)"
        if manifest { text += ", keys and metadata from manifest.json" }
        guard !refused.isEmpty else { return text }
        text += "\nrefused \(refused.count):"
        for refusal in refused { text += "\n  \(refusal.file.displaySafe): \(refusal.reason.displaySafe)" }
        return text
    }
}
