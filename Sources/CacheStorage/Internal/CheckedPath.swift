import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one way the store, the HTTP cache's key file and `cachectl export` open a path that
/// someone else may have replaced, and the only way they change a mode.
///
/// In a folder shared with a group, any member can put a symbolic link, a FIFO or a hard link
/// at one of the store's names, and swap it between two calls that name the same path. So a path
/// is opened once, without following a link at its last component and without blocking (opening
/// a FIFO for reading waits for a writer that never comes), and everything after that asks the
/// descriptor: what it is (`fstat`), and its mode (`fchmod`). A mode is never set by name, where
/// the name could point at another file by the time `chmod` resolves it.
package enum CheckedPath {
    /// Opens `path` as a regular file; with `createMode`, creates it when missing with exactly
    /// that mode (set on the descriptor, whatever the umask). The caller closes the descriptor.
    ///
    /// - Parameter flags: the access mode and any further flags (`O_RDONLY`, `O_RDWR` …).
    /// - Throws: ``StorageError/unexpectedFileType(path:found:expected:)`` when a link, FIFO,
    ///   folder, socket or device stands there; otherwise the ``StorageError`` of the failed call.
    package static func openFile(
        _ path: String, flags: Int32, creatingWith createMode: mode_t? = nil, operation: String = "open"
    ) throws(StorageError) -> Int32 {
        let checked = O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
        if let createMode {
            let created = open(path, flags | checked | O_CREAT | O_EXCL, createMode)
            if created >= 0 {
                fchmod(created, createMode)
                return blocking(created)
            }
            guard errno == EEXIST else {
                throw FileSystemErrors.error(errno: errno, path: path, operation: "create")
            }
        }
        let descriptor = open(path, flags | checked)
        guard descriptor >= 0 else {
            let code = errno
            // A link reports ELOOP under O_NOFOLLOW; a FIFO opened for writing with no reader, a
            // socket or an absent device report ENXIO.
            if code == ELOOP || code == ENXIO || code == EISDIR, let kind = nonRegularKind(at: path) {
                throw .unexpectedFileType(path: path, found: kind, expected: "regular file")
            }
            throw FileSystemErrors.error(errno: code, path: path, operation: operation)
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let code = errno
            close(descriptor)
            throw FileSystemErrors.error(errno: code, path: path, operation: operation)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw .unexpectedFileType(path: path, found: kindName(info.st_mode), expected: "regular file")
        }
        return blocking(descriptor)
    }

    /// Opens `path` as a folder, never through a symbolic link. The caller closes the descriptor.
    ///
    /// - Throws: ``StorageError/unexpectedFileType(path:found:expected:)`` naming what stands
    ///   there instead (a file, a link …); otherwise the ``StorageError`` of the failed call.
    package static func openFolder(_ path: String) throws(StorageError) -> Int32 {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOTDIR || code == ELOOP, let kind = kind(at: path) {
                throw .unexpectedFileType(path: path, found: kind, expected: "folder")
            }
            throw FileSystemErrors.error(errno: code, path: path, operation: "open the folder")
        }
        return descriptor
    }

    /// Creates the folder `path` and its missing parents, each with exactly `mode` (set on its
    /// descriptor, whatever the umask); a folder already there is left as it is. Returns whether
    /// this call created `path`.
    @discardableResult
    package static func createFolder(_ path: String, mode: mode_t) throws(StorageError) -> Bool {
        var created = mkdir(path, mode) == 0
        if !created && errno == ENOENT {
            let parent = (path as NSString).deletingLastPathComponent
            if !parent.isEmpty && parent != path { try createFolder(parent, mode: mode) }
            created = mkdir(path, mode) == 0
        }
        guard created else {
            if errno == EEXIST { return false }
            throw FileSystemErrors.error(errno: errno, path: path, operation: "create the folder")
        }
        // Only what this call made: its mode is set on its descriptor, never through the name.
        if let descriptor = try? openFolder(path) {
            setMode(of: descriptor, to: mode)
            close(descriptor)
        }
        return true
    }

    /// Sets the mode of the file or folder open at `descriptor`, when this user owns it and it is
    /// a folder or a regular file with no other name. Returns whether the mode is now as asked.
    ///
    /// A second name (a hard link someone made to a file of this user) would let a `fchmod` here
    /// change a file outside the store, so such a file keeps its mode.
    ///
    /// - Parameter onlyRemoving: take away what `mode` does not give, never add (a mode stays
    ///   as tight as it is).
    @discardableResult
    package static func setMode(of descriptor: Int32, to mode: mode_t, onlyRemoving: Bool = false) -> Bool {
        guard let (current, wanted) = modes(descriptor, mode: mode, onlyRemoving: onlyRemoving) else { return false }
        return current == wanted || fchmod(descriptor, wanted) == 0
    }

    /// Sets the mode of what stands at `path` (see ``setMode(of:to:onlyRemoving:)``), never
    /// following a link at its last component nor opening a FIFO (``Platform/setMode(at:wanted:)``
    /// says how); a link, a FIFO, another user's file or nothing at all is left as it is.
    package static func setMode(at path: String, to mode: mode_t, onlyRemoving: Bool = false) {
        Platform.setMode(at: path) { info in
            guard let (current, wanted) = modes(info, mode: mode, onlyRemoving: onlyRemoving), current != wanted else { return nil }
            return wanted
        }
    }

    /// The mode of the file at `descriptor` and the one to give it; nil when it is not this
    /// user's folder or single-named regular file.
    private static func modes(_ descriptor: Int32, mode: mode_t, onlyRemoving: Bool) -> (current: mode_t, wanted: mode_t)? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        return modes(info, mode: mode, onlyRemoving: onlyRemoving)
    }

    private static func modes(_ info: stat, mode: mode_t, onlyRemoving: Bool) -> (current: mode_t, wanted: mode_t)? {
        guard info.st_uid == geteuid() else { return nil }
        let type = info.st_mode & S_IFMT
        guard type == S_IFDIR || (type == S_IFREG && info.st_nlink == 1) else { return nil }
        let current = info.st_mode & 0o7777
        return (current, onlyRemoving ? current & mode : mode)
    }

    /// What stands at `path` when it is not a regular file ("FIFO", "symbolic link" …); nil for
    /// a regular file or nothing. For the files LMDB and SQLite open by name, checked first.
    package static func nonRegularKind(at path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG else { return nil }
        return kindName(info.st_mode)
    }

    private static func kind(at path: String) -> String? {
        var info = stat()
        return lstat(path, &info) == 0 ? kindName(info.st_mode) : nil
    }

    private static func kindName(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: "regular file"
        case S_IFDIR: "folder"
        case S_IFLNK: "symbolic link"
        case S_IFIFO: "FIFO"
        case S_IFSOCK: "socket"
        case S_IFCHR: "character device"
        case S_IFBLK: "block device"
        default: "special file"
        }
    }

    /// The descriptor with `O_NONBLOCK` cleared: it was there only so the open could not wait.
    private static func blocking(_ descriptor: Int32) -> Int32 {
        let flags = fcntl(descriptor, F_GETFL)
        if flags >= 0 && flags & O_NONBLOCK != 0 { _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) }
        return descriptor
    }
}
