import CacheArchive
import Foundation

/// The files an import takes, with the key each goes in under: from an export's manifest when the
/// folder has one, otherwise every file under the folder.
struct ImportSource {
    /// One file to import.
    struct Item {
        /// The file, always inside the import folder.
        var file: URL
        /// The path relative to the folder, for messages.
        var relativePath: String
        var key: String
        /// What the manifest recorded, when the folder is an export.
        var restored: ManifestEntry?
    }

    /// A file refused before it was opened.
    struct Unread {
        var relativePath: String
        /// `manifest` for a manifest entry pointing outside the folder, `read` for what is not a
        /// regular file inside it.
        var stage: String
        var reason: String
    }

    var items: [Item]
    /// Manifest entries that point outside the folder, links leading out of it, and anything
    /// that is not a regular file (a FIFO would hang the import): refused, never opened.
    var unread: [Unread]
    var usesManifest: Bool

    /// Reads `folder`: its `manifest.json` when present, else its files (hidden ones skipped),
    /// keyed as `baseURL` + the path relative to the folder (each segment percent-encoded when
    /// there is a base URL, so the key is the URL an app would request).
    init(folder: URL, baseURL: String?) throws(CommandFailure) {
        let manifest = folder.appendingPathComponent(ManifestEntry.fileName)
        if FileManager.default.fileExists(atPath: manifest.path) {
            usesManifest = true
            (items, unread) = try Self.fromManifest(manifest, folder: folder)
        } else {
            usesManifest = false
            let found = try Self.files(under: folder)
            unread = found.unread
            items = found.files.map { file in
                Item(
                    file: file.url, relativePath: file.relativePath,
                    key: Self.key(for: file.relativePath, baseURL: baseURL), restored: nil)
            }
        }
    }

    static func key(for relativePath: String, baseURL: String?) -> String {
        guard let baseURL, !baseURL.isEmpty else { return relativePath }
        let encoded = relativePath.split(separator: "/").map {
            $0.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#;")))
                ?? String($0)
        }
        return (baseURL.hasSuffix("/") ? baseURL : baseURL + "/") + encoded.joined(separator: "/")
    }

    /// Regular files under `folder`, relative and sorted, and what was refused there; hidden
    /// files and folders are skipped. A symbolic link is followed only to a regular file inside
    /// the folder.
    private static func files(under folder: URL) throws(CommandFailure)
        -> (files: [(relativePath: String, url: URL)], unread: [Unread])
    {
        let base = folder.standardizedFileURL.resolvingSymlinksInPath().path
        guard
            let enumerator = FileManager.default.enumerator(
                at: URL(fileURLWithPath: base, isDirectory: true), includingPropertiesForKeys: nil,
                options: [.skipsHiddenFiles])
        else { throw .fileSystem(path: folder.path, action: "read", reason: "not a readable folder") }
        var files: [(relativePath: String, url: URL)] = []
        var unread: [Unread] = []
        while let url = enumerator.nextObject() as? URL {
            let path = url.standardizedFileURL.path
            guard path.hasPrefix(base + "/") else { continue }
            let relativePath = String(path.dropFirst(base.count + 1))
            let kind = ImportFile.kind(atPath: path)
            if kind == .folder { continue }
            switch checkedTarget(of: path, inside: base) {
            case let .success(resolved): files.append((relativePath, URL(fileURLWithPath: resolved)))
            case let .failure(reason): unread.append(Unread(relativePath: relativePath, stage: "read", reason: reason.text))
            }
        }
        return (files.sorted { $0.relativePath < $1.relativePath }, unread.sorted { $0.relativePath < $1.relativePath })
    }

    /// Why a path is not imported, as a sentence for the report.
    struct Refusal: Error {
        var text: String
    }

    /// The path `path` leads to when that is a regular file inside `base` (every symbolic link on
    /// the way resolved), or why it is refused.
    static func checkedTarget(of path: String, inside base: String) -> Result<String, Refusal> {
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        guard resolved.hasPrefix(base + "/") else {
            return .failure(Refusal(text: "a symbolic link leading outside the folder; it was not read"))
        }
        switch ImportFile.kind(atPath: resolved) {
        case .regular: return .success(resolved)
        case .missing: return .failure(Refusal(text: "no such file; check the path"))
        case let kind: return .failure(Refusal(text: "\(kind.name), not a regular file; only regular files are imported, and it was not opened"))
        }
    }

    private static func fromManifest(_ manifest: URL, folder: URL) throws(CommandFailure) -> ([Item], [Unread]) {
        let entries: [ManifestEntry]
        do {
            entries = try Manifest.decode(Data(contentsOf: manifest))
        } catch {
            throw .unusableManifest(path: manifest.path, reason: "\(error)")
        }
        let base = folder.standardizedFileURL.resolvingSymlinksInPath().path
        var items: [Item] = []
        var unread: [Unread] = []
        for entry in entries {
            // A manifest is input like any other: a `file` of `../x` or `/etc/passwd`, or a symlink
            // leading out, must not make an import read outside the folder.
            guard let named = Manifest.containedPath(entry.file, inside: base) else {
                unread.append(Unread(relativePath: entry.file, stage: "manifest", reason: "the manifest points outside the folder; it was not read"))
                continue
            }
            switch checkedTarget(of: named, inside: base) {
            case let .success(resolved):
                items.append(Item(file: URL(fileURLWithPath: resolved), relativePath: entry.file, key: entry.key, restored: entry))
            case let .failure(reason):
                unread.append(Unread(relativePath: entry.file, stage: "manifest", reason: reason.text))
            }
        }
        return (items, unread)
    }
}
