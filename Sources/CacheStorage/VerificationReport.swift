import Foundation

/// What ``PersistentStore/verify(repair:)`` found, and what it repaired.
public struct VerificationReport: Sendable, Hashable {
    /// One problem found.
    public enum Problem: Sendable, Hashable, CustomStringConvertible {
        /// The record's bytes are missing.
        case missingBlob(key: String)
        /// The blob's length differs from the record's.
        case sizeMismatch(key: String, expected: Int, actual: Int)
        /// The blob's checksum differs from the record's.
        case checksumMismatch(key: String)
        /// A record that cannot be decoded (digest in hex).
        case unreadableRecord(digest: String)
        /// A blob with no record (digest in hex).
        case orphanBlob(digest: String)
        /// An index row with no entry behind it.
        case danglingIndexRow(key: String)
        /// An entry the index does not list.
        case unindexedEntry(key: String)
        /// An index row whose size or checksum differs from the entry's record.
        case indexMismatch(key: String)
        /// SQLite finds the index file malformed: LMDB's entries were checked without it, and a
        /// repair rebuilds it from them.
        case malformedIndex(reason: String)

        public var description: String {
            switch self {
            case let .missingBlob(key): "blob missing for '\(key)'"
            case let .sizeMismatch(key, expected, actual): "'\(key)' is \(actual) bytes, record says \(expected)"
            case let .checksumMismatch(key): "checksum mismatch for '\(key)'"
            case let .unreadableRecord(digest): "unreadable record \(digest)"
            case let .orphanBlob(digest): "blob \(digest) has no record"
            case let .danglingIndexRow(key): "index lists '\(key)' but the entry is gone"
            case let .unindexedEntry(key): "entry '\(key)' is missing from the index"
            case let .indexMismatch(key): "index row for '\(key)' disagrees with its record"
            case let .malformedIndex(reason): "the index is malformed (\(reason)); entries were checked without it"
            }
        }
    }

    /// Entries checked.
    public var entriesChecked: Int
    /// Bytes read and checksummed.
    public var bytesChecked: Int
    /// Problems found.
    public var problems: [Problem]
    /// Whether the problems were repaired (damaged entries removed, the index rebuilt).
    public var repaired: Bool

    /// True when nothing was wrong.
    public var isClean: Bool { problems.isEmpty }
}
