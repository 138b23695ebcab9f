import Foundation

/// The names of the simulated disk (files and folders): as the process sees them, as they surely
/// are on disk, and the changes made since that are not yet.
struct SimulatedDisk {
    enum Change {
        case create(String, SimulatedFile)
        case rename(String, String)
        case exchange(String, String)
        case link(String, String)
        case unlink(String)
        case makeFolder(String)
        case removeFolder(String)

        /// The folders whose sync makes the change durable ("" for the recorded folder).
        var folders: [String] {
            switch self {
            case let .create(name, _), let .link(_, name), let .unlink(name), let .makeFolder(name), let .removeFolder(name):
                [SimulatedDisk.folder(of: name)]
            case let .rename(from, to), let .exchange(from, to):
                [SimulatedDisk.folder(of: from), SimulatedDisk.folder(of: to)]
            }
        }
    }

    struct Names {
        var files: [String: SimulatedFile] = [:]
        var folders: Set<String> = []
    }

    private var liveNames = Names()
    private var durable = Names()
    private var pending: [Change] = []

    var live: [String: SimulatedFile] { liveNames.files }

    static func folder(of name: String) -> String {
        name.split(separator: "/").dropLast().joined(separator: "/")
    }

    /// The file at `name`; one written without being created (it existed before the recording)
    /// becomes a durable name.
    mutating func file(_ name: String) -> SimulatedFile {
        if let file = liveNames.files[name] { return file }
        let file = SimulatedFile()
        liveNames.files[name] = file
        durable.files[name] = file
        return file
    }

    mutating func change(_ change: Change) {
        Self.apply(change, to: &liveNames)
        pending.append(change)
    }

    /// A folder was synced: its names, and every change made before (the journal commits in
    /// order), are on disk.
    mutating func syncFolder(_ folder: String) {
        guard let last = pending.lastIndex(where: { $0.folders.contains(folder) }) else { return }
        for change in pending[...last] { Self.apply(change, to: &durable) }
        pending.removeSubrange(...last)
    }

    /// The durable names with a random prefix of the later changes (all when `kept` is 1); files
    /// in a folder that does not exist in that state are gone with it.
    func names(keeping kept: Double, using random: inout SeededRandom) -> (files: [String: SimulatedFile], folders: Set<String>) {
        var names = durable
        let count = kept >= 1 ? pending.count : kept <= 0 ? 0 : Int.random(in: 0...pending.count, using: &random)
        for change in pending.prefix(count) { Self.apply(change, to: &names) }
        func exists(_ folder: String) -> Bool {
            folder.isEmpty || (names.folders.contains(folder) && exists(Self.folder(of: folder)))
        }
        return (names.files.filter { exists(Self.folder(of: $0.key)) }, names.folders.filter(exists))
    }

    private static func apply(_ change: Change, to names: inout Names) {
        switch change {
        case let .create(name, file): names.files[name] = file
        case let .rename(from, to):
            if names.folders.contains(from) {
                // A folder's rename moves everything under it.
                names.folders.remove(from)
                names.folders.insert(to)
                for (name, file) in names.files where name.hasPrefix(from + "/") {
                    names.files[name] = nil
                    names.files[to + name.dropFirst(from.count)] = file
                }
            } else {
                names.files[to] = names.files.removeValue(forKey: from) ?? SimulatedFile()
            }
        case let .exchange(first, second):
            let file = names.files[first]
            names.files[first] = names.files[second]
            names.files[second] = file
        case let .link(from, to): names.files[to] = names.files[from] ?? SimulatedFile()
        case let .unlink(name): names.files[name] = nil
        case let .makeFolder(name): names.folders.insert(name)
        case let .removeFolder(name): names.folders.remove(name)
        }
    }
}
