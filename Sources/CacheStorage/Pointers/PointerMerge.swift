import CLMDB

/// Merges the pointer tail into `records` (see ``PointerTailIndex``): the writer thread's, between
/// batches.
///
/// A round begins once the tail holds `threshold` pairs. It reads them, sorts them by digest, and
/// writes them into `records` in slices, one transaction after each batch, so a
/// put waits for one slice at most; each slice rewrites a run of neighbouring leaves, once for
/// many pointers. The last slice also prunes the round's pairs from the tail and raises the store's
/// number floor past them (see ``BlobNumbers``).
///
/// A slice writes a pointer only while the tail still holds its pair: every deletion of a logged
/// record (a put replacing it, a removal, an eviction, a repair) deletes the record's pair in the
/// same transaction, so a pair in the tail names a live record, and the slice need not read the
/// record log (reading it for each pair was over half of the merge's time). A round cut short (a
/// crash, a failed commit) leaves pointers that the next round writes again, which changes
/// nothing, and pairs in the tail, which the next round takes.
struct PointerMerge {
    /// A number in the tail and the digest it was logged under, ordered by digest.
    struct Pair: Comparable {
        let digest: KeyDigest
        let number: UInt64

        static func < (lhs: Pair, rhs: Pair) -> Bool {
            (lhs.digest, lhs.number) < (rhs.digest, rhs.number)
        }
    }

    /// The round under way: its pairs sorted by digest, the last number it takes, and how many
    /// pairs have been written.
    private var pairs: [Pair] = []
    private var through: UInt64 = 0
    private var written = 0

    /// Whether a round is under way.
    var isUnderWay: Bool { !pairs.isEmpty }

    /// Writes the next slice (`sliceSize` pointers, or a 32nd of the round if more) of the
    /// round under way, or begins one when the tail holds at least `threshold` pairs.
    mutating func step(_ blobs: BlobStore, threshold: Int, sliceSize: Int) throws {
        if pairs.isEmpty {
            let tail = blobs.databases.pointerTail
            // Read into the array the last round used: its capacity is kept between rounds.
            let begun = try blobs.read { txn -> Bool in
                let count = try txn.count(tail)
                guard count >= threshold else { return false }
                pairs.reserveCapacity(count)
                try txn.forEach(tail) { key, value in
                    if let number = BlobLocation.number(fromKey: key), let digest = KeyDigest(bytes: value) {
                        pairs.append(Pair(digest: digest, number: number))
                    }
                    return true
                }
                return true
            }
            guard begun, let last = pairs.last else { return }
            through = last.number
            pairs.sort()
            written = 0
        }
        // At least a 32nd of the round: a round then takes 32 batches at most, so the tail cannot
        // outgrow its merge however many puts a batch holds.
        let size = max(1, sliceSize, (pairs.count + 31) / 32)
        let slice = pairs[written..<min(written + size, pairs.count)]
        let isLast = slice.endIndex == pairs.count
        let through = through
        try blobs.write { txn in
            let databases = blobs.databases
            let tail = databases.pointerTail
            for pair in slice {
                try BlobLocation.log(pair.number).withKey { pointer in
                    // Still in the tail: still the digest's record (see ``BlobNumbers/dropTailPair(_:)``).
                    guard try txn.get(tail, key: pointer) != nil else { return }
                    try pair.digest.withBytes { try txn.put(databases.records, key: $0, value: pointer) }
                }
            }
            guard isLast else { return }
            try LMDBCursor(txn, tail).deleteLeading { key in
                guard let number = BlobLocation.number(fromKey: key), number <= through else { return nil }
                return true
            }
            guard var info = try txn.storeInfo(databases) else { return }
            BlobNumbers.raiseFloor(&info, pastMerged: through)
            try txn.writeStoreInfo(info, databases)
        }
        written = slice.endIndex
        if isLast { pairs.removeAll(keepingCapacity: true) }
    }

    /// Drops the round under way (after a failure: the next round takes its pairs again).
    mutating func abandon() {
        pairs.removeAll(keepingCapacity: true)
    }
}
