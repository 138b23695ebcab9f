import Foundation

/// The entry another entry was derived from (a thumbnail from its original), named by key and by
/// the checksum of the bytes it was derived from.
///
/// The store keeps a derived entry exactly as long as its source holds those bytes: removing,
/// evicting or purging the source, or replacing it with other bytes, removes what was derived from
/// it in the same commit, in every process sharing the store. A put whose source is missing or
/// holds other bytes by the time it commits is refused with ``StorageError/sourceChanged(key:source:)``.
public struct EntrySource: Sendable, Hashable {
    /// The source entry's key.
    public var key: String
    /// XXH64 of the source's bytes (``EntryMetadata/checksum``).
    public var checksum: UInt64

    /// A source named by its key and the checksum the store recorded for it.
    public init(key: String, checksum: UInt64) {
        self.key = key
        self.checksum = checksum
    }

    /// A source named by its key and the bytes the derived entry was made from.
    public init(key: String, bytes: Data) {
        self.init(key: key, checksum: bytes.withUnsafeBytes { XXHash64.hash($0) })
    }
}
