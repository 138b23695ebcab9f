/// What an HTTP cache's writes behind its responses have done since the cache was made, and what
/// waits now. Writes that failed or were dropped are in ``StorageFailureCounts``.
public struct WriteBehindStatistics: Sendable, Hashable {
    /// Writes waiting now (or being committed).
    public var pendingWrites = 0
    /// Body bytes those writes hold.
    public var pendingBytes = 0
    /// Writes accepted: each store, update after a validation, and derived body (a thumbnail).
    public var accepted = 0
    /// Accepted writes that replaced a waiting write of the same key: both end in one commit.
    public var coalesced = 0
    /// Writes committed to the store.
    public var committed = 0
    /// Derived bodies not committed because what they were derived from changed first (new bytes,
    /// or removed): the store refuses them, as it would have on the response path.
    public var discarded = 0

    /// Empty statistics.
    public init() {}
}
