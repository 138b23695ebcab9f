import Foundation

/// A snapshot of what a store holds and how it is used.
public struct StoreStatistics: Sendable, Hashable {
    /// Entries and bytes of one format.
    public struct FormatUsage: Sendable, Hashable {
        /// Entries of the format.
        public var entries: Int
        /// Bytes they hold.
        public var bytes: Int
    }

    /// Entries in the store.
    public var entries: Int
    /// Bytes of blobs in the store.
    public var bytes: Int
    /// Usage per format (`"unknown"` for entries stored without one).
    public var formats: [String: FormatUsage]
    /// Entries whose expiry has passed.
    public var expiredEntries: Int
    /// Entries with an expiry still ahead.
    public var unexpiredEntries: Int
    /// Entries stored with no expiry.
    public var entriesWithoutExpiry: Int
    /// The oldest last-access time, if any entry exists.
    public var oldestAccess: Date?
    /// The newest last-access time, if any entry exists.
    public var newestAccess: Date?
    /// The largest entries, largest first (up to five).
    public var largestEntries: [EntryMetadata]
    /// The configured byte limit.
    public var byteLimit: Int
    /// The byte limit in force: ``byteLimit``, or less when the volume cannot spare that much
    /// (see ``DiskSpacePolicy``).
    public var effectiveByteLimit: Int
    /// Whether the volume's free space, not ``byteLimit``, sets ``effectiveByteLimit``.
    public var byteLimitBoundByFreeSpace: Bool
    /// The volume's size, when the file system tells.
    public var volumeBytes: Int?
    /// The volume's free space for this user, when the file system tells.
    public var volumeAvailableBytes: Int?
    /// Whether writes go through, and why not when they do not.
    public var writeStatus: WriteStatus
    /// The configured entry limit, if any.
    public var entryLimit: Int?
    /// LMDB's map size (address space reserved).
    public var mapBytes: Int
    /// Bytes of LMDB's data file in use.
    public var mapUsedBytes: Int
    /// Size of the SQLite index and its write-ahead log.
    public var indexFileBytes: Int
    /// Reads that found an entry, as persisted by every process so far.
    public var hits: Int
    /// Reads that found nothing.
    public var misses: Int
    /// Entries derived from another (``EntryMetadata/source``), counted in ``entries`` too.
    public var derivedEntries: Int = 0
    /// Bytes those derived entries hold, counted in ``bytes`` too.
    public var derivedBytes: Int = 0
    /// Stores that opening found damaged or of another version's format, moved aside into
    /// `quarantine/` and replaced by this one (empty then): counted in this store's index, so 0
    /// for a store that replaced none.
    public var storesMovedAside: Int = 0
    /// Reads that found an entry whose bytes were missing, of another length or refuted by its
    /// checksum (damage on disk), as persisted by every process so far: each was answered with a
    /// miss (counted in ``misses`` too, unless it was a ``PersistentStore/peek(_:)``) and the
    /// entry removed, unless the store was read-only.
    public var damagedReadsRefused: Int = 0
}

/// Whether a store's writes go through.
public enum WriteStatus: Sendable, Hashable, CustomStringConvertible {
    /// Writes go through.
    case writable
    /// The disk (or this user's quota) is full: reads go on, writes fail at once with
    /// ``StorageError/diskFull(path:operation:)`` and resume by themselves once space is freed.
    case pausedDiskFull
    /// The store was opened read-only, for the reason given.
    case readOnly(reason: String)

    public var description: String {
        switch self {
        case .writable: "writable"
        case .pausedDiskFull: "disk full: writes paused"
        case let .readOnly(reason): "read-only (\(reason))"
        }
    }
}
