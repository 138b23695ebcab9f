import CacheStorage

/// How often storing, updating or removing a cached response failed since the cache was made,
/// by cause, dropped writes included. A failure never fails a load: the response the origin sent
/// is returned all the same.
public struct StorageFailureCounts: Sendable, Hashable {
    /// The disk (or the user's quota) was full.
    public var diskFull = 0
    /// The store was read-only.
    public var readOnly = 0
    /// The store refused the entry itself (a key or body over its limits).
    public var refused = 0
    /// Anything else (an I/O error, a damaged or closed store).
    public var other = 0
    /// Writes dropped before reaching the store because the writes waiting behind responses were
    /// at their limits (``HTTPCache/Configuration/writeBehind``): the disk is slower than the network.
    public var queueFull = 0

    /// Every failure counted.
    public var total: Int { diskFull + readOnly + refused + other + queueFull }

    /// Creates empty counts.
    public init() {}
}
