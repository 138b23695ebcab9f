import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Creates the store's folders and files with the modes ``FileSharing`` asks for, and never
/// through a symbolic link planted at one of their names.
///
/// The modes are set exactly, not left to the umask, so a group-shared store is group-writable
/// whatever the creating process's umask; existing files this user owns are brought to the same
/// modes on open. Every open and every mode change goes through ``CheckedPath``.
enum StoreFiles {
    /// Creates `url` as a folder, or checks that it is one. Missing parents are created with the
    /// same folder mode: `~/.cache` made for a private store is 0700, as the XDG spec asks.
    static func makeDirectory(_ url: URL, sharing: FileSharing) throws {
        let path = url.path
        if mkdir(path, sharing.directoryMode) == 0 {
            // The new folder's entry in its parent reaches the disk before anything is written
            // inside it: after a power loss, files synced in a folder whose own entry was lost
            // are lost with it. A parent this user may not read cannot be synced, and is not the
            // store's: the folder is used all the same.
            try? sync(url.deletingLastPathComponent(), operation: "sync the folder holding")
        } else {
            let code = errno
            if code == ENOENT {
                try CheckedPath.createFolder(url.deletingLastPathComponent().path, mode: sharing.directoryMode)
                return try makeDirectory(url, sharing: sharing)
            }
            guard code == EEXIST else {
                throw FileSystemErrors.error(errno: code, path: path, operation: "create the folder")
            }
        }
        switch Result(catching: { () throws(StorageError) in try CheckedPath.openFolder(path) }) {
        case let .success(descriptor):
            CheckedPath.setMode(of: descriptor, to: sharing.directoryMode)
            close(descriptor)
        case let .failure(.unexpectedFileType(_, found, _)):
            throw StorageError.corruptStore(
                path: path, reason: "\(url.lastPathComponent) is not a folder (a \(found) stands there)")
        case let .failure(error):
            // A folder this user may not read is not this user's to change: writing there fails
            // later with its own error, or opens the store read-only.
            guard error.isPermissionProblem else { throw error }
        }
    }

    /// Opens `url` for reading and writing, creating it with the sharing's mode when missing;
    /// refuses a symbolic link, a FIFO or anything else that is not a regular file. The caller
    /// closes the descriptor.
    static func openFile(_ url: URL, sharing: FileSharing, flags: Int32 = 0) throws -> Int32 {
        let descriptor = try CheckedPath.openFile(url.path, flags: O_RDWR | flags, creatingWith: sharing.fileMode)
        CheckedPath.setMode(of: descriptor, to: sharing.fileMode)
        return descriptor
    }

    /// Creates `url` with the sharing's mode when missing (and brings an existing one's mode in line).
    static func createFile(_ url: URL, sharing: FileSharing) throws {
        close(try openFile(url, sharing: sharing))
    }

    /// `fsync` on a file or folder: its data, or its entries, on stable storage.
    static func sync(_ url: URL, operation: String) throws {
        let descriptor = open(url.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileSystemErrors.error(errno: errno, path: url.path, operation: operation) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw FileSystemErrors.error(errno: errno, path: url.path, operation: operation)
        }
    }

    /// Sets the mode of a folder or file this user owns to `mode` when it differs; leaves
    /// anything else (other owners, symbolic links, FIFOs, missing paths) as it is.
    static func tighten(_ path: String, to mode: mode_t) {
        CheckedPath.setMode(at: path, to: mode)
    }

    /// Whether this process may create and change files in `url` (false on a read-only mount or
    /// in a folder of another user).
    static func isWritableDirectory(_ url: URL) -> Bool {
        access(url.path, W_OK | X_OK) == 0 && !Platform.isReadOnlyMount(url.path)
    }
}
