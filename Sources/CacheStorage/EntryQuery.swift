import Foundation

/// Which entries to list, in which order, one page at a time.
///
/// Every filter set must hold (they combine with AND). Listing reads the SQLite index, which
/// follows LMDB within one write batch.
public struct EntryQuery: Sendable, Hashable {
    /// The order entries come in.
    public enum Order: String, Sendable, Hashable, CaseIterable {
        /// By key, ascending.
        case key
        /// Least recently read first: eviction's order.
        case leastRecentlyUsed
        /// Most recently read first.
        case mostRecentlyUsed
        /// Largest first.
        case largest
        /// Newest stored first.
        case newest
        /// Oldest stored first.
        case oldest
    }

    /// Keys starting with this string, compared as UTF-8 bytes.
    public var keyPrefix: String?
    /// URL keys whose host is this, ignoring ASCII case: the authority of `scheme://host/…`
    /// without its userinfo and port, so `victim.test` matches `https://VICTIM.test:8443/a` but
    /// not `https://victim.test.evil.test/a` or `https://other.test/?u=https://victim.test/`.
    public var host: String?
    /// Entries whose expiry has passed at this date.
    public var expiredAt: Date?
    /// Entries stored before this date.
    public var storedBefore: Date?
    /// Entries last read before this date.
    public var accessedBefore: Date?
    /// Entries larger than this many bytes.
    public var largerThanBytes: Int?
    /// Entries of this format.
    public var format: String?
    /// Entries derived from the entry with this key (``EntryMetadata/source``).
    public var derivedFrom: String?
    /// Only derived entries (true), or only entries stored in their own right (false).
    public var isDerived: Bool?
    /// The order; ``Order/key`` by default.
    public var order: Order = .key
    /// At most this many entries; nil for all.
    public var limit: Int?
    /// Entries to skip, for paging.
    public var offset: Int = 0

    /// A query with no filters.
    public init(
        keyPrefix: String? = nil, host: String? = nil, expiredAt: Date? = nil, storedBefore: Date? = nil,
        accessedBefore: Date? = nil, largerThanBytes: Int? = nil, format: String? = nil,
        derivedFrom: String? = nil, isDerived: Bool? = nil, order: Order = .key, limit: Int? = nil, offset: Int = 0
    ) {
        self.keyPrefix = keyPrefix
        self.host = host
        self.expiredAt = expiredAt
        self.storedBefore = storedBefore
        self.accessedBefore = accessedBefore
        self.largerThanBytes = largerThanBytes
        self.format = format
        self.derivedFrom = derivedFrom
        self.isDerived = isDerived
        self.order = order
        self.limit = limit
        self.offset = offset
    }
}
