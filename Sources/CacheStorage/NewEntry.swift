import Foundation

/// An entry to store: a key, its bytes and the caller's attributes.
public struct NewEntry: Sendable, Hashable {
    /// Any string; a URL for images fetched over HTTP.
    public var key: String
    /// The bytes, up to ``StoreConfiguration/maxEntryBytes``.
    public var data: Data
    /// What to record with the bytes.
    public var attributes: EntryAttributes
    /// The entry these bytes were derived from, if any: this entry then lives only as long as that
    /// one holds the same bytes (see ``EntrySource``).
    public var source: EntrySource?

    /// Creates an entry to put.
    public init(key: String, data: Data, attributes: EntryAttributes = EntryAttributes(), source: EntrySource? = nil) {
        self.key = key
        self.data = data
        self.attributes = attributes
        self.source = source
    }
}
