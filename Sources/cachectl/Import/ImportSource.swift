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

    var items: [Item]
    /// Manifest entries whose `file` points outside the folder: refused, never read.
    var escaping: [(relativePath: String, key: String)]
    var usesManifest: Bool

    /// Reads `folder`: its `manifest.json` when present, else its files (hidden ones skipped),
    /// keyed as `baseURL` + the path relative to the folder (each segment percent-encoded when
    /// there is a base URL, so the key is the URL an app would request).
    init(folder: URL, baseURL: String?) throws(CommandFailure) {
        let manifest = folder.appendingPathComponent(ManifestEntry.fileName)
        if FileManager.default.fileExists(atPath: manifest.path) {
            usesManifest = true
            (items, escaping) = try Self.fromManifest(manifest, folder: folder)
        } else {
            usesManifest = false
            escaping = []
            items = try Self.files(under: folder).map { relativePath in
                Item(
                    file: folder.appendingPathComponent(relativePath), relativePath: relativePath,
                    key: Self.key(for: relativePath, baseURL: baseURL), restored: nil)
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

    /// Regular files under `folder`, relative and sorted; hidden files and folders are skipped.
    private static func files(under folder: URL) throws(CommandFailure) -> [String] {
        let base = folder.standardizedFileURL.resolvingSymlinksInPath().path
        guard
            let enumerator = FileManager.default.enumerator(
                at: URL(fileURLWithPath: base, isDirectory: true), includingPropertiesForKeys: [.isRegularFileKey],
                options: [.skipsHiddenFiles])
        else { throw .fileSystem(path: folder.path, action: "read", reason: "not a readable folder") }
        var paths: [String] = []
        while let url = enumerator.nextObject() as? URL {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
            let path = url.standardizedFileURL.path
            guard path.hasPrefix(base + "/") else { continue }
            paths.append(String(path.dropFirst(base.count + 1)))
        }
        return paths.sorted()
    }

    private static func fromManifest(_ manifest: URL, folder: URL) throws(CommandFailure)
        -> ([Item], [(relativePath: String, key: String)])
    {
        let entries: [ManifestEntry]
        do {
            entries = try JSONOutput.decoder().decode([ManifestEntry].self, from: Data(contentsOf: manifest))
        } catch {
            throw .unusableManifest(path: manifest.path, reason: "\(error)")
        }
        let base = folder.standardizedFileURL.resolvingSymlinksInPath().path
        var items: [Item] = []
        var escaping: [(relativePath: String, key: String)] = []
        for entry in entries {
            // A manifest is input like any other: a `file` of `../x` or `/etc/passwd`, or a symlink
            // leading out, must not make an import read outside the folder.
            let resolved = URL(fileURLWithPath: base).appendingPathComponent(entry.file).standardizedFileURL
                .resolvingSymlinksInPath().path
            if entry.file.hasPrefix("/") || entry.file.contains("\0") || !resolved.hasPrefix(base + "/") {
                escaping.append((entry.file, entry.key))
            } else {
                items.append(Item(file: URL(fileURLWithPath: resolved), relativePath: entry.file, key: entry.key, restored: entry))
            }
        }
        return (items, escaping)
    }
}
