/// The blobs this process has read and found to match their checksums, so that reading one again
/// need not hash it again: a read of a 100 KiB entry spent more time hashing than reading.
///
/// A blob is named by where it lives and the checksum that vouched for it, so a replaced entry
/// (another record, another place or other bytes) is a blob not yet verified. What is remembered
/// lasts as long as the store is open: every open verifies each blob once more. Bytes that went
/// bad on the disk after their first read in this process can therefore be served until the store
/// is reopened; ``PersistentStore/verify(repair:)`` and every read after a reopen catch them.
///
/// At most ``capacity`` blobs are remembered; past that, reads of others hash every time (the
/// memory stays bounded whatever the store holds).
final class VerifiedBlobs: Sendable {
    /// Blobs remembered at most: a few megabytes.
    static let capacity = 1 << 16

    private struct Blob: Hashable {
        var digest: KeyDigest
        /// The blob's number in its log (a record with its bytes: its record's).
        var number: UInt64
        var checksum: UInt64
    }

    private let verified = Locked(Set<Blob>())

    /// Whether `bytes` match `checksum`, hashing them unless this blob was verified before.
    func matches(_ bytes: UnsafeRawBufferPointer, checksum: UInt64, digest: KeyDigest, location: BlobLocation) -> Bool {
        let blob = Blob(digest: digest, number: location.number, checksum: checksum)
        if verified.withLock({ $0.contains(blob) }) { return true }
        guard XXHash64.hash(bytes) == checksum else { return false }
        verified.withLock { set in
            if set.count < Self.capacity { set.insert(blob) }
        }
        return true
    }
}
