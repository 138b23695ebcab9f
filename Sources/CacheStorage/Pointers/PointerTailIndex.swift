import CLMDB

/// This process's index of the pointer tail: the `pointer_tail` database's pairs of a logged
/// record's number and its entry's digest, by digest.
///
/// A put logs its record under a new number (see ``RecordLocation``) and, instead of writing that
/// number into `records` under the digest, appends the pair to `pointer_tail`, keyed by the
/// number. `records` is keyed by a hash: each pointer written there rewrote a random leaf of a
/// tree of about 8,000 leaves at 1,000,000 entries, one leaf per put. The tail is appended to in
/// order, and the writer merges it into `records` in digest order once it holds
/// `StoreConfiguration.pointerMergeThreshold` pairs (``PointerMerge``), rewriting each leaf once
/// for many pointers.
///
/// A lookup by digest reads the tail through this index, then `records`. Each number found is
/// checked against the record log, whose values begin with their entry's digest, so a pair that
/// is out of date (its record deleted or replaced since, or merged and pruned) reads as nothing
/// and the lookup goes on. A digest has at most one live logged record, so whichever number
/// checks out is the entry's.
///
/// The index is brought up to a read transaction's snapshot by reading the pairs appended since
/// (numbers only grow, see ``BlobNumbers``). A write transaction brings it up to date as it
/// begins, before it writes anything: what it appends itself is not committed, and the numbers
/// it takes are free again if it is abandoned; the transaction finds its own pairs in
/// its ``ChangeSet``. A snapshot older than the last pruning the index followed may need pairs it
/// dropped: such a lookup reads its own snapshot's tail instead (rare: a read racing the end of a
/// merge).
///
/// Lookups take the index's lock shared, catching up takes it exclusively.
final class PointerTailIndex: Sendable {
    private struct Pairs {
        /// The newest number under each digest's first 8 bytes. Keyed by those alone, half the
        /// memory: two digests that share them (rare) keep one number here and one in `older`, and
        /// the record log tells them apart like any pair out of date.
        var newest: [UInt64: UInt64] = [:]
        /// The other numbers under digests' first 8 bytes: digests put more than once since the last
        /// merge, or sharing them (rare).
        var older: [UInt64: [UInt64]] = [:]
        /// The last key of the tail read into the index.
        var readThrough: UInt64 = 0
        /// The tail's first key when the index last looked: pairs below it have been pruned.
        var firstKey: UInt64 = 0
        /// The newest snapshot (LMDB transaction id) the index has been brought up to.
        var snapshot = 0
        /// The snapshot at which pruned pairs were last dropped from the index.
        var prunedAt = 0
    }

    private let pairs = Locked(Pairs(), sharing: .sharedReads)

    /// Pairs in the index, for tests and statistics.
    var count: Int { pairs.withSharedLock { $0.newest.count + $0.older.values.reduce(0) { $0 + $1.count } } }

    /// Brings the index up to `txn`'s snapshot, the committed state `snapshot` names.
    func catchUp(_ txn: LMDBTransaction, tail: MDB_dbi, snapshot: Int) throws {
        if pairs.withSharedLock({ snapshot <= $0.snapshot }) { return }
        try pairs.withLock { pairs in
            guard snapshot > pairs.snapshot else { return }
            let first = try txn.firstKey(tail).flatMap(BlobLocation.number(fromKey:)) ?? pairs.readThrough + 1
            if first > pairs.firstKey {
                pairs.firstKey = first
                if pairs.newest.values.contains(where: { $0 < first }) || !pairs.older.isEmpty {
                    // In place: the table keeps its capacity for the next round's pairs, where a
                    // new one each round left the freed ones to the allocator, raising peak memory.
                    let kept = pairs.newest.filter { $0.value >= first }
                    pairs.newest.removeAll(keepingCapacity: true)
                    pairs.newest.merge(kept) { new, _ in new }
                    pairs.older = pairs.older.compactMapValues { numbers in
                        let kept = numbers.filter { $0 >= first }
                        return kept.isEmpty ? nil : kept
                    }
                    pairs.prunedAt = snapshot
                }
            }
            try BlobLocation.log(pairs.readThrough + 1).withKey { start in
                _ = try txn.forEachReadable(tail, from: start) { key, value in
                    guard let number = BlobLocation.number(fromKey: key), let digest = KeyDigest(bytes: value) else {
                        return true
                    }
                    if let previous = pairs.newest.updateValue(number, forKey: digest.high) {
                        pairs.older[digest.high, default: []].append(previous)
                    }
                    pairs.readThrough = max(pairs.readThrough, number)
                    return true
                }
            }
            pairs.snapshot = snapshot
        }
    }

    /// The numbers the tail gives `digest` in `txn`'s snapshot, newest first, until `body` returns
    /// a value. A read transaction brings the index up to its snapshot first; a write transaction
    /// was brought up as it began (see the type's notes).
    func firstMatch<Found>(
        of digest: KeyDigest, in txn: LMDBTransaction, tail: MDB_dbi, _ body: (UInt64) throws -> Found?
    ) throws -> Found? {
        // One look under the lock on a read's usual path: the index is current, the snapshot not
        // older than a pruning it followed.
        let id = txn.isWrite ? nil : mdb_txn_id(txn.handle)
        var look = self.look(digest, snapshot: id)
        if case .behind = look, let id {
            try catchUp(txn, tail: tail, snapshot: id)
            look = self.look(digest, snapshot: id)
        }
        guard case let .numbers(first, others) = look else {
            return try firstMatchInSnapshot(of: digest, in: txn, tail: tail, body)
        }
        guard let first else { return nil }
        if let found = try body(first) { return found }
        for number in (others ?? []).reversed() {
            if let found = try body(number) { return found }
        }
        return nil
    }

    private enum Look {
        /// The index has not read the pairs of this snapshot yet.
        case behind
        /// The snapshot is older than pairs the index dropped.
        case pruned
        case numbers(UInt64?, [UInt64]?)
    }

    /// `digest`'s numbers, when the index serves `snapshot` (nil: a write transaction's, brought
    /// up as it began).
    private func look(_ digest: KeyDigest, snapshot: Int?) -> Look {
        pairs.withSharedLock { pairs in
            if let snapshot {
                if snapshot > pairs.snapshot { return .behind }
                if snapshot < pairs.prunedAt { return .pruned }
            }
            return .numbers(pairs.newest[digest.high], pairs.older[digest.high])
        }
    }

    /// The same, from `txn`'s own tail: for a snapshot older than pairs the index dropped.
    private func firstMatchInSnapshot<Found>(
        of digest: KeyDigest, in txn: LMDBTransaction, tail: MDB_dbi, _ body: (UInt64) throws -> Found?
    ) throws -> Found? {
        var numbers: [UInt64] = []
        _ = try txn.forEachReadable(tail) { key, value in
            if KeyDigest(bytes: value) == digest, let number = BlobLocation.number(fromKey: key) { numbers.append(number) }
            return true
        }
        for number in numbers.reversed() {
            if let found = try body(number) { return found }
        }
        return nil
    }
}

extension LMDBTransaction {
    /// Appends `number`'s pair to the pointer tail (the number is past every key there).
    func appendToTail(_ number: UInt64, digest: KeyDigest, _ tail: MDB_dbi) throws {
        try BlobLocation.log(number).withKey { key in
            try digest.withBytes { try put(tail, key: key, value: $0, flags: UInt32(MDB_APPEND)) }
        }
    }
}
