import ArgumentParser
import CacheStorage
import Foundation

/// `--path DIR`, shared by every subcommand, and how cachectl opens the store there.
struct StoreOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The cache folder. Default: $SWIFT_IMAGE_CACHE_PATH, else $XDG_CACHE_HOME/swift-image-cache or ~/.cache/swift-image-cache (the Caches folder on Apple platforms).",
            valueName: "dir"))
    var path: String?

    /// The folder `--path` names, or the library's default cache location.
    var directory: URL {
        path.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? PersistentStore.defaultDirectory
    }

    /// Whether a store has ever been opened in ``directory`` (its LMDB data file exists).
    var holdsStore: Bool {
        FileManager.default.fileExists(atPath: directory.appendingPathComponent("blobs/data.mdb").path)
    }

    /// Opens the store already in ``directory``; never creates one.
    ///
    /// - Parameter recovery: `.throwError` (the default) refuses a damaged store instead of moving
    ///   it aside, so inspecting a cache never changes it; `verify --repair` passes `.rebuild`.
    /// - Throws: ``CommandFailure``.
    func openExistingStore(recovery: RecoveryPolicy = .throwError) throws(CommandFailure) -> PersistentStore {
        guard holdsStore else { throw .noCache(path: directory.path) }
        return try open(recovery: recovery)
    }

    /// Opens the store in ``directory``, creating the folder and an empty store when missing.
    func openOrCreateStore() throws(CommandFailure) -> PersistentStore {
        try open(recovery: .throwError)
    }

    private func open(recovery: RecoveryPolicy) throws(CommandFailure) -> PersistentStore {
        do {
            return try PersistentStore(directory: directory, configuration: .commandLineTool(recovery: recovery))
        } catch {
            throw CommandFailure(error)
        }
    }
}

extension StoreConfiguration {
    /// How cachectl opens a store: with no limits of its own, so a command never evicts anything
    /// it was not asked to remove.
    ///
    /// Limits are each process's configuration, not stored in the cache: an app that opens the
    /// cache later applies its own limit on its next write.
    static func commandLineTool(recovery: RecoveryPolicy) -> StoreConfiguration {
        var configuration = StoreConfiguration()
        configuration.byteLimit = Int.max / 4
        configuration.entryLimit = nil
        // The default initial map is twice the byte limit; LMDB adopts an existing store's
        // larger map on open and grows the map when it fills.
        configuration.initialMapBytes = 64 << 20
        configuration.recovery = recovery
        // Nor from the volume's free space: that rule is the app's, applied on its own writes.
        configuration.diskSpace = .byteLimitOnly
        return configuration
    }
}

extension PersistentStore {
    /// Runs `body` with the store, then closes it (persisting recorded reads) whatever happens.
    func use<Value>(_ body: (PersistentStore) async throws -> Value) async throws -> Value {
        defer { close() }
        return try await body(self)
    }
}
