/// What ``PersistentStore/copyEntriesThatReadClean(into:)`` copied and left behind.
public struct SalvageReport: Sendable, Hashable {
    /// Entries copied, their bytes checked against their checksums.
    public var copied: Int
    /// Entries left behind: a record that does not decode, bytes missing, of another length or
    /// refuted by their checksum, or a derived entry whose source was left behind.
    public var leftBehind: Int
    /// Why the walk over the damaged store ended early (an LMDB error), if it did.
    public var stoppedEarly: String?
}
