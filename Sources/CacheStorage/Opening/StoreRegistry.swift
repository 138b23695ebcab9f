import Foundation

/// The cores open in this process, by canonical directory path, with how many handles use each.
enum StoreRegistry {
    private static let open = Locked<[String: (core: StoreCore, handles: Int)]>([:])

    static func acquire(directory: URL, configuration: StoreConfiguration) throws -> StoreCore {
        let path = canonicalPath(directory, sharing: configuration.sharing)
        // Opening under the registry lock keeps two handles from opening LMDB twice in this process.
        return try open.withLock { cores in
            if let existing = cores[path] {
                cores[path] = (existing.core, existing.handles + 1)
                return existing.core
            }
            let core = try StoreCore(directory: URL(fileURLWithPath: path, isDirectory: true), configuration: configuration)
            cores[path] = (core, 1)
            return core
        }
    }

    static func release(_ core: StoreCore) {
        let last: StoreCore? = open.withLock { cores in
            let path = core.layout.directory.path
            guard let existing = cores[path], existing.core === core else { return nil }
            if existing.handles > 1 {
                cores[path] = (core, existing.handles - 1)
                return nil
            }
            cores[path] = nil
            return core
        }
        last?.close()
    }

    private static func canonicalPath(_ directory: URL, sharing: FileSharing) -> String {
        // Created here (private by default) so that a symbolic link in its path resolves; a
        // folder that cannot be created is reported by the opener.
        try? StoreFiles.makeDirectory(directory, sharing: sharing)
        return directory.standardizedFileURL.resolvingSymlinksInPath().path
    }
}
