/// The folder an open core holds: where its files are, the locks it holds on them, and why the
/// store is read-only when it is.
struct StoreFolder: Sendable {
    let layout: StoreLayout
    /// Held shared for the core's life, so compaction can tell whether another process is using
    /// the store (nil for a read-only store that could not open it).
    let usersLock: FileLock?
    /// Held exclusively (without waiting) by compaction, so that no process opens the store meanwhile.
    let openLock: FileLock?
    /// Why the store is read-only, when it is: every write then fails with ``StorageError/readOnly(path:reason:)``.
    let readOnlyReason: String?
}
