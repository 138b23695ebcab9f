import CLMDB
import CLMDBGuard
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns LMDB return codes into ``StorageError`` values.
enum LMDBError {
    static func check(_ code: Int32, _ operation: String, path: String? = nil) throws {
        guard code != 0 else { return }
        throw error(code, operation, path: path)
    }

    /// The typed error for `code`: a system error with a file-system meaning (no space, read-only,
    /// permission) becomes that case when the path is known; anything else stays `.lmdb`.
    static func error(_ code: Int32, _ operation: String, path: String? = nil) -> StorageError {
        if let path, code > 0, code != EIO, code != EINVAL, code != ENOMEM {
            let typed = FileSystemErrors.error(errno: code, path: path, operation: "\(operation) in")
            if case .io = typed {} else { return typed }
        }
        if code == faultCode {
            return .lmdb(operation: operation, code: code, message: "LMDB faulted on a damaged page (the data file is damaged)")
        }
        return .lmdb(operation: operation, code: code, message: String(cString: mdb_strerror(code)))
    }

    /// What a guarded call returns when LMDB faulted inside it (see `CLMDBGuard`).
    static let faultCode = Int32(LMDB_GUARD_FAULTED)

    /// A failed commit's error. LMDB reports a short write as `EIO` (its page flush cannot tell
    /// why `writev` stopped), which on a volume with no room left is a full disk, not a failing one.
    static func commitError(_ code: Int32, directory: URL) -> StorageError {
        let dataFile = directory.appendingPathComponent("data.mdb").path
        if code == EIO, let space = VolumeSpace.of(directory.path), space.availableBytes < 1 << 20 {
            return .diskFull(path: dataFile, operation: "commit a write to")
        }
        return error(code, "commit a write transaction", path: dataFile)
    }

    /// Codes that mean the file is not a sound LMDB environment, as opposed to a passing failure.
    static func meansCorruption(_ code: Int32) -> Bool {
        code == MDB_INVALID || code == MDB_CORRUPTED || code == MDB_PAGE_NOTFOUND
            || code == MDB_VERSION_MISMATCH || code == MDB_BAD_TXN || code == MDB_BAD_VALSIZE
            || code == MDB_INCOMPATIBLE || code == ENOTDIR || code == faultCode
    }
}

extension StorageError {
    /// Whether LMDB failed for a damaged page: it said so, or it faulted and the guard caught it.
    var meansDamagedPages: Bool {
        if case let .lmdb(_, code, _) = self { LMDBError.meansCorruption(code) } else { false }
    }

    /// Whether the store could not be opened for lack of rights here (a read-only mount, a folder
    /// or lock file of another user), so reading without writing may still work.
    var isPermissionProblem: Bool {
        switch self {
        case .readOnly, .permissionDenied: true
        default: false
        }
    }
}
