import Foundation

/// An entry read back from the store: its bytes and the metadata that vouches for them.
public struct CachedEntry: Sendable, Hashable {
    /// The stored bytes; their length and checksum match ``metadata``.
    public var data: Data
    /// The entry's metadata.
    public var metadata: EntryMetadata

    /// Pairs bytes with their metadata.
    public init(data: Data, metadata: EntryMetadata) {
        self.data = data
        self.metadata = metadata
    }
}
