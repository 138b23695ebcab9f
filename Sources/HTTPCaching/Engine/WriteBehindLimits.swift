/// How much an HTTP cache may hold in writes that have not reached its disk tier yet.
///
/// Responses are stored behind the load that fetched them (see ``HTTPCache/waitForPendingWrites()``):
/// a slow disk never slows a load, and the writes wait in memory instead. These limits bound that
/// memory. A write that would pass either limit is dropped, not waited for: the load has its
/// response already, the disk keeps what it had, and the drop is counted in
/// ``StorageFailureCounts/queueFull`` and logged.
///
/// ```swift
/// var configuration = HTTPCache.Configuration(store: store)
/// configuration.writeBehind = WriteBehindLimits(maxPendingWrites: 64, maxPendingBytes: 16 * 1024 * 1024)
/// ```
public struct WriteBehindLimits: Sendable, Hashable {
    /// Writes waiting at once, one per key (a newer write of a key replaces the waiting one).
    /// 256 by default.
    public var maxPendingWrites: Int
    /// Body bytes the waiting writes hold, in all. 64 MiB by default: a write of a larger body
    /// than this is always dropped.
    public var maxPendingBytes: Int

    /// Limits of `maxPendingWrites` writes and `maxPendingBytes` bytes.
    public init(maxPendingWrites: Int = 256, maxPendingBytes: Int = 64 * 1024 * 1024) {
        self.maxPendingWrites = maxPendingWrites
        self.maxPendingBytes = maxPendingBytes
    }
}
