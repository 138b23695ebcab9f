import CacheStorage
import Foundation

/// Why a subcommand stopped, with a sentence that says what to do about it and the exit status
/// it maps to.
enum CommandFailure: Error, CustomStringConvertible {
    /// No store at the folder (commands other than `import` and `warm` never create one).
    case noCache(path: String)
    /// The store refused or failed an operation.
    case storage(StorageError)
    /// `export --to` names a folder that already holds files.
    case exportFolderNotEmpty(path: String)
    /// `export --to` names a folder others could plant files or links in, or read the export from.
    case unsafeExportFolder(path: String, reason: String)
    /// A file or folder the command needs could not be read or written.
    case fileSystem(path: String, action: String, reason: String)
    /// `show` was given a key the store does not hold.
    case entryNotFound(key: String)
    /// An `import` manifest that cannot be used.
    case unusableManifest(path: String, reason: String)
    /// The command ran, printed what it found, and found problems; the report says which.
    case problemsReported
    /// Any other error, whose own description is the sentence.
    case unexpected(String)

    var exitStatus: ExitStatus {
        switch self {
        case .entryNotFound, .problemsReported: .problemsFound
        case .noCache, .storage, .exportFolderNotEmpty, .unsafeExportFolder, .fileSystem, .unusableManifest, .unexpected: .couldNotRun
        }
    }

    var description: String {
        switch self {
        case let .noCache(path):
            "There is no cache at \(path); pass --path with the app's cache folder, or set \(PersistentStore.directoryEnvironmentVariable)."
        case let .storage(error):
            Self.describe(error)
        case let .exportFolderNotEmpty(path):
            "\(path) already holds files; export into a new or empty folder so the manifest describes exactly what is there."
        case let .unsafeExportFolder(path, reason):
            "Will not export into \(path): \(reason). Export into a new folder, or an empty one of your own that no other user may write."
        case let .fileSystem(path, action, reason):
            "Could not \(action) \(path) (\(reason)); check the path and its permissions."
        case let .entryNotFound(key):
            "The cache holds no entry for '\(key.displaySafe(limit: 300))'; run `cachectl list --prefix ...` to find the exact key."
        case let .unusableManifest(path, reason):
            "The manifest \(path) cannot be used (\(reason)); import the folder without it (move it away) or export it again."
        case .problemsReported:
            "Problems were found; see the report above."
        case let .unexpected(description):
            description
        }
    }

    /// The store's own sentence, except where cachectl offers the remedy instead of the library.
    private static func describe(_ error: StorageError) -> String {
        switch error {
        case let .corruptStore(path, reason):
            "The cache at \(path) is damaged (\(reason)); run `cachectl verify --repair` to move the damaged files aside (the app would start empty), or delete the folder."
        case let .incompatibleStore(path, reason):
            "The cache at \(path) was written by another version (\(reason)); use the cachectl that comes with that version, or delete the folder (the app itself moves such a cache aside and starts empty)."
        default:
            error.description
        }
    }
}

extension CommandFailure {
    /// Wraps any error a command meets as a failure with a sentence.
    init(_ error: any Error) {
        switch error {
        case let failure as CommandFailure: self = failure
        case let storage as StorageError: self = .storage(storage)
        default: self = .unexpected("\(error)")
        }
    }
}
