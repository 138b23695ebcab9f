import Foundation

/// Why a storage operation failed, with a sentence that says what to do about it.
public enum StorageError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The entry is larger than ``StoreConfiguration/maxEntryBytes``.
    case entryTooLarge(key: String, byteCount: Int, limit: Int)
    /// The key is longer than ``StoreConfiguration/maxKeyBytes``.
    case keyTooLong(byteCount: Int, limit: Int)
    /// The store's files are damaged and the configuration asked for an error instead of a rebuild.
    case corruptStore(path: String, reason: String)
    /// The store was written by another version (older or newer, of another on-disk format) and
    /// the configuration asked for an error instead of a rebuild.
    case incompatibleStore(path: String, reason: String)
    /// Another process has the store open, so an operation that needs it alone was refused.
    case storeInUse(path: String, operation: String)
    /// The store was closed before the operation could run.
    case closed
    /// LMDB reported an error.
    case lmdb(operation: String, code: Int32, message: String)
    /// SQLite reported an error.
    case sqlite(operation: String, code: Int32, message: String)
    /// A file-system call failed.
    case io(path: String, operation: String, errno: Int32, message: String)
    /// The volume holding the store has no room left (`ENOSPC`, or the file reached the largest
    /// size the system allows). Reads go on; writes are paused and resume by themselves once space
    /// is freed, without reopening the store.
    case diskFull(path: String, operation: String)
    /// The user's disk quota on the store's volume is used up (`EDQUOT`); writes resume by
    /// themselves once the quota allows them again.
    case quotaExceeded(path: String, operation: String)
    /// The store cannot be written: a read-only mount, a folder this user may read but not write,
    /// or a store opened with ``StoreAccess/readOnly``. Reads, listings and `verify` work.
    case readOnly(path: String, reason: String)
    /// The operating system refused access to a file of the store (`EACCES`, `EPERM`).
    case permissionDenied(path: String, operation: String)
    /// A derived entry was not stored: its ``EntrySource`` is no longer in the store with the
    /// bytes it was derived from (removed, evicted or replaced meanwhile, perhaps by another process).
    case sourceChanged(key: String, source: String)
    /// Something other than what the store keeps stands at one of its names (a FIFO, a symbolic
    /// link, a device where a regular file belongs): refused without opening it, as opening could
    /// block forever or reach a file outside the store.
    case unexpectedFileType(path: String, found: String, expected: String)

    public var description: String {
        switch self {
        case let .entryTooLarge(key, byteCount, limit):
            return "Entry '\(key.prefix(200))' is \(byteCount) bytes, over the store's maximum entry size of \(limit) bytes; raise StoreConfiguration.maxEntryBytes or do not cache it."
        case let .keyTooLong(byteCount, limit):
            return "The key is \(byteCount) bytes long, over the limit of \(limit); use a shorter key (for example a digest of the URL)."
        case let .corruptStore(path, reason):
            return "The cache at \(path) is damaged (\(reason)); delete the folder or open it with recovery set to .rebuild."
        case let .incompatibleStore(path, reason):
            return "The cache at \(path) was written by another version (\(reason)); use that version, or open with recovery set to .rebuild to move it aside and start afresh."
        case let .storeInUse(path, operation):
            return "Cannot \(operation) the cache at \(path) while another process has it open; close the other process and try again."
        case .closed:
            return "The store is closed; open it again before using it."
        case let .lmdb(operation, code, message):
            return "LMDB failed to \(operation): \(message) (code \(code))."
        case let .sqlite(operation, code, message):
            return "SQLite failed to \(operation): \(message) (code \(code))."
        case let .io(path, operation, errno, message):
            return "Could not \(operation) \(path): \(message) (errno \(errno)); check the path and its permissions."
        case let .diskFull(path, operation):
            return "Could not \(operation) \(path): the disk is full. Cached images can still be read; writes are paused and resume by themselves once space is freed (delete files, or run `cachectl purge` on the cache)."
        case let .quotaExceeded(path, operation):
            return "Could not \(operation) \(path): the disk quota of this user is used up. Cached images can still be read; writes resume by themselves once the quota allows (free space, or run `cachectl purge` on the cache)."
        case let .readOnly(path, reason):
            return "The cache at \(path) cannot be written (\(reason)); reads work, writes are refused. Open a writable folder to cache new images."
        case let .permissionDenied(path, operation):
            return "Could not \(operation) \(path): permission denied. The cache folder belongs to another user or its modes forbid this; use a folder this user owns."
        case let .sourceChanged(key, source):
            return "'\(key.prefix(200))' was not stored: its source '\(source.prefix(200))' was removed or replaced since it was read; derive it again from the source's current bytes."
        case let .unexpectedFileType(path, found, expected):
            return "\(path) is a \(found), not a \(expected); the cache never puts one there: remove it (only the cache should write in this folder) and try again."
        }
    }

    public var errorDescription: String? { description }

    /// Whether something other than the kind of file the store keeps stood at one of its names.
    package var isUnexpectedFileType: Bool {
        if case .unexpectedFileType = self { true } else { false }
    }

    /// Whether the failure was a lack of space (a full disk or a used-up quota): writes resume by
    /// themselves once space is freed.
    public var isOutOfSpace: Bool {
        switch self {
        case .diskFull, .quotaExceeded: true
        default: false
        }
    }
}
