import ArgumentParser
import CacheStorage
import CacheArchive
import Foundation
import HTTPCaching

/// `cachectl export`: entries as image files, with a manifest and, on request, an HTML gallery.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write entries as image files with manifest.json (and index.html with --html).",
        discussion: """
            One file per entry, named from its key (safe characters only, a short hash of the key, \
            the extension of the format its bytes show), always directly inside --to, whatever the \
            key holds. manifest.json lists each entry's key, file, bytes, format, width, height, \
            stored_at, last_access, etag, expires (ISO 8601) and the stored response; \
            `cachectl import` reads it back. --html adds index.html, a gallery that opens from \
            the file system, loads images lazily and uses nothing from the network; it shows each \
            image through a preview the platform decoder made (JPEG, or PNG where there is \
            alpha, at most 340 pixels a side, written beside the files and not in the manifest), \
            so TIFF, HEIC and the rest show in any browser, and SVGs show as pixels. \
            Entries whose bytes are damaged on disk (they do not match their checksum) are not \
            exported: they are named, removed from the cache, and the command exits with status 1. \
            Takes the same filters as purge. The folder must be new, or empty, yours and writable by \
            nobody else; a new one is made 0700 and its files 0600, as the cache's own.

            An export does not count as a read: no entry's last access (so its place in eviction \
            order) or the hit counter moves, and last_access is the one recorded before the export.

            Example:
              cachectl export --to ~/cache-export --host cdn.example.com --html
            """
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup(title: "Filters") var filters: EntryFilters

    @Option(help: ArgumentHelp("The folder to write into; created when missing (0700), else empty, yours and writable by nobody else.", valueName: "dir"))
    var to: String

    @Flag(help: "Also write index.html, a gallery of the images with their metadata.")
    var html = false

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    func run() async throws {
        let folder = URL(fileURLWithPath: to, isDirectory: true).standardizedFileURL
        let now = Date()
        let (exported, exportFolder) = try await store.openExistingStore().use { store in
            // Shared as the store is: the store's own rule gives the modes.
            let exportFolder = try ExportFolder(preparing: folder, sharing: store.configuration.sharing)
            let entries = try filters.entries(in: store, now: now)
            let written = try await ExportWriter(folder: exportFolder, now: now, previews: html).write(entries, from: store)
            return (written, exportFolder)
        }
        try exportFolder.write(Manifest.encode(exported.manifest), named: ManifestEntry.fileName)
        if html {
            let page = GalleryPage(
                entries: exported.manifest, previews: exported.previews, source: store.directory.path, exportedAt: now)
            try exportFolder.write(Data(page.render().utf8), named: "index.html")
        }
        let report = ExportReport(
            folder: folder.path, entries: exported.manifest.count, bytes: exported.manifest.reduce(0) { $0 + $1.bytes },
            vanished: exported.vanished, damaged: exported.damaged, manifest: ManifestEntry.fileName,
            gallery: html ? "index.html" : nil, previews: exported.previews.count)
        if json {
            try JSONOutput.print(report)
        } else {
            Terminal.print(report.text())
        }
        // The rest is exported; the status says that not everything listed was.
        if !exported.damaged.isEmpty { throw CommandFailure.problemsReported }
    }
}

/// What `export` wrote.
struct ExportReport: Encodable {
    var folder: String
    var entries: Int
    var bytes: Int
    /// Entries listed but gone before their bytes were read (another process removed them).
    var vanished: Int
    /// Keys of entries whose bytes are damaged on disk, so not exported.
    var damaged: [String]
    var manifest: String
    var gallery: String?
    /// Previews written for the gallery (entries whose bytes do not decode have none).
    var previews: Int

    func text() -> String {
        var text = "exported \(entries) \(entries == 1 ? "entry" : "entries") (\(ByteSize.format(bytes))) to \(folder)"
        text += "\n  \(manifest)" + (gallery.map { "\n  \($0)  (open file://\(folder)/\($0) in a browser)" } ?? "")
        if gallery != nil { text += "\n  \(previews) previews for the gallery" }
        if vanished > 0 { text += "\n\(vanished) listed entries were removed by another process before they could be read" }
        if !damaged.isEmpty {
            text += "\nnot exported: \(damaged.count) \(damaged.count == 1 ? "entry is" : "entries are") damaged on disk "
                + "(bytes that do not match their checksum); the cache removes them and loads them again when next asked:"
            for key in damaged { text += "\n  \(key.displaySafe(limit: 300))" }
        }
        return text
    }
}
