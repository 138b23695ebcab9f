import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Creates the store's folders and files with the modes ``FileSharing`` asks for, and never
/// through a symbolic link planted at one of their names.
///
/// The modes are set exactly (`fchmod`, `chmod`), not left to the umask, so a group-shared store
/// is group-writable whatever the creating process's umask; existing files this user owns are
/// brought to the same modes on open.
enum StoreFiles {
    /// Creates `url` as a folder (its parents with default modes), or checks that it is one.
    static func makeDirectory(_ url: URL, sharing: FileSharing) throws {
        let path = url.path
        if mkdir(path, sharing.directoryMode) == 0 {
            chmod(path, sharing.directoryMode)
            return
        }
        let code = errno
        if code == ENOENT {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            return try makeDirectory(url, sharing: sharing)
        }
        guard code == EEXIST else {
            throw FileSystemErrors.error(errno: code, path: path, operation: "create the folder")
        }
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw StorageError.corruptStore(
                path: path, reason: "\(url.lastPathComponent) is not a folder (a file or a symbolic link stands there)")
        }
        tighten(path, to: sharing.directoryMode)
    }

    /// Opens `url` for reading and writing, creating it with the sharing's mode when missing;
    /// refuses a symbolic link. The caller closes the descriptor.
    static func openFile(_ url: URL, sharing: FileSharing, flags: Int32 = 0) throws -> Int32 {
        let path = url.path
        let created = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | flags, sharing.fileMode)
        if created >= 0 {
            fchmod(created, sharing.fileMode)
            return created
        }
        let descriptor = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC | flags)
        guard descriptor >= 0 else {
            throw FileSystemErrors.error(errno: errno, path: path, operation: "open")
        }
        tighten(descriptor, to: sharing.fileMode)
        return descriptor
    }

    /// Creates `url` with the sharing's mode when missing (and brings an existing one's mode in line).
    static func createFile(_ url: URL, sharing: FileSharing) throws {
        close(try openFile(url, sharing: sharing))
    }

    /// `fsync` on a file or folder: its data, or its entries, on stable storage.
    static func sync(_ url: URL, operation: String) throws {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileSystemErrors.error(errno: errno, path: url.path, operation: operation) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw FileSystemErrors.error(errno: errno, path: url.path, operation: operation)
        }
    }

    /// Sets the mode of a folder or file this user owns to `mode` when it differs; leaves
    /// anything else (other owners, symbolic links, missing paths) as it is.
    static func tighten(_ path: String, to mode: mode_t) {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_uid == geteuid(),
            (info.st_mode & S_IFMT) == S_IFDIR || (info.st_mode & S_IFMT) == S_IFREG,
            info.st_mode & 0o777 != mode
        else { return }
        chmod(path, mode)
    }

    private static func tighten(_ descriptor: Int32, to mode: mode_t) {
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_uid == geteuid(), info.st_mode & 0o777 != mode else { return }
        fchmod(descriptor, mode)
    }

    /// Whether this process may create and change files in `url` (false on a read-only mount or
    /// in a folder of another user).
    static func isWritableDirectory(_ url: URL) -> Bool {
        access(url.path, W_OK | X_OK) == 0 && !isReadOnlyMount(url)
    }

    private static func isReadOnlyMount(_ url: URL) -> Bool {
        var info = statvfs()
        guard statvfs(url.path, &info) == 0 else { return false }
        return info.f_flag & UInt(ST_RDONLY) != 0
    }
}
