/// Whether a store is opened to be written.
public enum StoreAccess: Sendable, Hashable {
    /// Reads and writes. When the folder cannot be written (a read-only mount, a folder of another
    /// user), an existing store opens read-only instead, logs why, and reports it in
    /// ``StoreStatistics/writeStatus``.
    case readWrite
    /// Reads, listings, statistics and `verify` without repair; every write throws
    /// ``StorageError/readOnly(path:reason:)``. Nothing in the folder is created or changed, access
    /// times are not recorded, and a writer in another process is neither blocked nor disturbed.
    case readOnly
}
