/// What a look-up that does not count as a read found for a key: the entry, nothing, or an
/// entry whose bytes are damaged on disk and so were not returned.
///
/// For tools that must tell a damaged entry from an absent one, such as an export
/// (see ``PersistentStore/peekReportingDamage(_:)``).
public enum StoredEntryLookup: Sendable, Hashable {
    /// The entry, its bytes checked against its checksum.
    case found(CachedEntry)
    /// No entry for the key (never stored, or removed meanwhile).
    case absent
    /// An entry is stored but its bytes are missing, of another length or refuted by its
    /// checksum: they were not returned, and the entry is being removed (unless the store is
    /// read-only).
    case damaged

    /// The entry, when one was found whole.
    public var entry: CachedEntry? {
        if case let .found(entry) = self { entry } else { nil }
    }
}
