import Foundation
import Logging

/// How a ``PersistentStore`` limits, flushes and recovers itself.
///
/// ```swift
/// var configuration = StoreConfiguration()
/// configuration.byteLimit = 200 * 1024 * 1024
/// let store = try PersistentStore(directory: url, configuration: configuration)
/// ```
public struct StoreConfiguration: Sendable {
    /// Total bytes the store may hold; writes that pass it evict down to ``byteLowWater``.
    /// 512 MiB by default.
    public var byteLimit: Int = 512 * 1024 * 1024
    /// Entries the store may hold; `nil` (the default) means no count limit.
    public var entryLimit: Int?
    /// The fraction of each limit that eviction brings the store down to. 0.9 by default, so one
    /// eviction makes room for many writes instead of running on every batch.
    public var lowWaterFraction: Double = 0.9
    /// The largest blob a put accepts. 64 MiB by default.
    public var maxEntryBytes: Int = 64 * 1024 * 1024
    /// The longest key a put accepts, in UTF-8 bytes. 16 KiB by default.
    public var maxKeyBytes: Int = 16 * 1024
    /// When writes reach the disk. ``Durability/standard`` (synced every second) by default.
    public var durability: Durability = .standard
    /// What opening does with a damaged store or one of another version. ``RecoveryPolicy/rebuild``
    /// by default.
    public var recovery: RecoveryPolicy = .rebuild
    /// How many distinct recorded reads wake the writer to persist last-access times, which it
    /// does once the reads pause (within a second while they keep coming); they are also
    /// persisted with every write batch and on close. 1,024 by default.
    public var accessFlushThreshold: Int = 1024
    /// The most bytes of puts the writer commits in one transaction. 16 MiB by default: LMDB
    /// holds a transaction's pages in memory until it commits, so this bounds that memory.
    public var maxBatchBytes: Int = 16 * 1024 * 1024
    /// Address space LMDB reserves at first; `nil` (the default) means twice ``byteLimit``, at
    /// least 64 MiB. The map doubles whenever it fills, so this only sets where growth starts.
    public var initialMapBytes: Int?
    /// How the store shares its volume: the free space that must stay free, and a reserve that
    /// lets deletions commit on a full disk. ``DiskSpacePolicy/standard`` by default.
    public var diskSpace: DiskSpacePolicy = .standard
    /// Whether the store is opened for writing. ``StoreAccess/readWrite`` by default (falling back
    /// to read-only, logged, when the folder cannot be written).
    public var access: StoreAccess = .readWrite
    /// Who may open the files the store creates. ``FileSharing/owner`` (0700/0600) by default.
    public var sharing: FileSharing = .owner
    /// Where the store reports recoveries and repairs.
    public var logger: Logger = Logger(label: "CacheStorage")
    /// Pairs the pointer tail gathers before the writer merges them into `records` (see
    /// ``PointerTailIndex``): for a store of a million small entries, a round this large rewrites
    /// each of the tree's leaves about once, where writing each pointer with its put rewrote one
    /// leaf per put. Each process that reads the store holds the tail's pairs in memory (a few
    /// bytes each).
    /// Lowered by tests, to merge often; 0 writes each pointer into `records` with its put, as a
    /// store did before the tail (for tests of `records` itself).
    var pointerMergeThreshold = 65_536
    /// Pointers one transaction of the merge writes (see ``PointerMerge``): a 32nd of a round, so
    /// a put waits for that at most, and the transaction's dirty pages, held in memory until it
    /// commits, stay few (larger slices raised peak memory by what they held). Lowered by
    /// tests, to merge in many slices.
    var pointerMergeSlice = 2048
    /// How far the index's write-ahead log may grow before the writer makes it start over
    /// (``MetadataIndex/restartLogIfPastBound(catchUpBytes:)``). A busy writer never leaves a
    /// passive checkpoint a moment to catch up, so without it the log grows as long as the writer
    /// is busy, and an opener after a crash reads all of it. Lowered by tests.
    var indexLogBoundBytes = 32 << 20

    /// Creates the default configuration.
    public init() {}

    /// ``byteLimit`` × ``lowWaterFraction``: where eviction stops.
    public var byteLowWater: Int { Int(Double(byteLimit) * lowWaterFraction) }

    /// ``entryLimit`` × ``lowWaterFraction``, when there is a count limit.
    public var entryLowWater: Int? { entryLimit.map { Int(Double($0) * lowWaterFraction) } }
}

/// When committed writes reach stable storage.
public enum Durability: Sendable, Hashable {
    /// Commits are not synced one by one; the writer syncs every `interval` while there are new
    /// commits, on ``PersistentStore/flush()`` and on close. A killed process loses nothing. A power
    /// loss or OS crash within `interval` of a write loses the store's contents: on the next open it
    /// is detected (see `flush.state`), moved aside and replaced by an empty store, never trusted.
    /// At any other moment a power loss loses nothing. The default, every second, inserts about
    /// twice as fast as ``eachCommit`` (see Benchmarks/RESULTS.md).
    case periodic(interval: Duration)
    /// Each group commit is on stable storage before its puts return (its pages synced, then the
    /// page that records the commit): a put that returned survives a power loss. Puts from
    /// concurrent tasks share a commit and its syncs.
    case eachCommit
    /// The same promise and, in this version, the same syncs as ``eachCommit``: the mode to name
    /// when a put that returned must survive a power loss whatever a later version tunes.
    case full

    /// Periodic flushing every second.
    public static let standard = Durability.periodic(interval: .seconds(1))
}

/// What opening a store does when its files are damaged or come from another version.
public enum RecoveryPolicy: Sendable, Hashable {
    /// Move the bad files aside into `quarantine/`, log why, and open an empty store.
    case rebuild
    /// Throw ``StorageError/corruptStore(path:reason:)`` or ``StorageError/incompatibleStore(path:reason:)``.
    case throwError
}
