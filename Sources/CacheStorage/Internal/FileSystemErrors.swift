import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns a failed file-system call into the ``StorageError`` that names its cause.
///
/// The one place that decides what an `errno` means for the store, so LMDB, SQLite and the
/// store's own files report a full disk, a quota, a read-only mount or a refused permission alike.
enum FileSystemErrors {
    static func error(errno code: Int32, path: String, operation: String) -> StorageError {
        switch code {
        case ENOSPC, EFBIG: .diskFull(path: path, operation: operation)
        case EDQUOT: .quotaExceeded(path: path, operation: operation)
        case EROFS: .readOnly(path: path, reason: "the file system is mounted read-only")
        case EACCES, EPERM: .permissionDenied(path: path, operation: operation)
        default: .io(path: path, operation: operation, errno: code, message: String(cString: strerror(code)))
        }
    }

    /// Whether `code` says the store cannot be written here (as opposed to a passing failure).
    static func meansUnwritable(_ code: Int32) -> Bool {
        code == EROFS || code == EACCES || code == EPERM
    }
}
