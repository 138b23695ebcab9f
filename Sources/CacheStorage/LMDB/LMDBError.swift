import CLMDB

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns LMDB return codes into ``StorageError`` values.
enum LMDBError {
    static func check(_ code: Int32, _ operation: String) throws {
        guard code != 0 else { return }
        throw error(code, operation)
    }

    static func error(_ code: Int32, _ operation: String) -> StorageError {
        .lmdb(operation: operation, code: code, message: String(cString: mdb_strerror(code)))
    }

    /// Codes that mean the file is not a sound LMDB environment, as opposed to a passing failure.
    static func meansCorruption(_ code: Int32) -> Bool {
        code == MDB_INVALID || code == MDB_CORRUPTED || code == MDB_PAGE_NOTFOUND
            || code == MDB_VERSION_MISMATCH || code == MDB_BAD_TXN || code == MDB_BAD_VALSIZE
            || code == MDB_INCOMPATIBLE || code == ENOTDIR
    }
}
