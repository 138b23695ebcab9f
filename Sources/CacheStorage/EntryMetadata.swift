import Foundation

/// Everything the store knows about one entry except its bytes.
public struct EntryMetadata: Sendable, Hashable {
    /// The caller's key (a URL or any string), kept in full.
    public var key: String
    /// The blob's length in bytes.
    public var byteCount: Int
    /// XXH64 of the blob; the bytes a read returns always match it.
    public var checksum: UInt64
    /// When the bytes were stored.
    public var storedAt: Date
    /// The last read this store knows of (reads are recorded in memory and persisted in batches).
    public var lastAccess: Date
    /// What the caller recorded with the entry.
    public var attributes: EntryAttributes
    /// The entry this one was derived from; nil for an entry stored in its own right.
    public var source: EntrySource?

    /// Creates metadata; the store makes these, callers mostly read them.
    public init(
        key: String, byteCount: Int, checksum: UInt64, storedAt: Date, lastAccess: Date,
        attributes: EntryAttributes, source: EntrySource? = nil
    ) {
        self.key = key
        self.byteCount = byteCount
        self.checksum = checksum
        self.storedAt = storedAt
        self.lastAccess = lastAccess
        self.attributes = attributes
        self.source = source
    }

    /// The cost used for limits: the caller's, or the byte count.
    public var cost: Int { attributes.cost ?? byteCount }

    /// Whether the entry's ``EntryAttributes/expiresAt`` has passed at `date`.
    public func isExpired(at date: Date = Date()) -> Bool {
        guard let expiresAt = attributes.expiresAt else { return false }
        return expiresAt <= date
    }
}
