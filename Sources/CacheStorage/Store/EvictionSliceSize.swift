/// How many entries the next slice of a mass eviction takes (see `StoreCore.evict`).
///
/// A put queued during a mass eviction waits for the slice under way, and a slice's cost can grow
/// with the store: when records were keyed by digest each deletion dirtied a leaf of that B-tree,
/// one page per entry once the tree was much larger than the slice, so 1,024 small entries took
/// about 15 ms at 200,000 entries and 25 ms at 1,000,000 here. (Records are now deleted from the
/// front of the record log, see ``RecordLocation``; the sizing stays for stores from before it, and
/// for slices slowed by their index rows or a loaded disk.) Slices start at ``initial`` and are halved
/// while one takes longer than ``slow`` (down to ``minimum``), doubled back while one takes under
/// half of that: a put waits about the same whatever the store's size, and a small store's
/// eviction is not slowed by slices smaller than it needs. At 1,000,000 small entries the p99 of
/// puts during an eviction went from 54 to 44 ms; 16 ms as the threshold gave 33 ms, but twice as
/// many slices and puts between them made the eviction take 27.6 s instead of 15.6.
struct EvictionSliceSize {
    static let initial = 1024
    static let minimum = 128
    static let slow: Duration = .milliseconds(22)

    private(set) var entries = initial

    mutating func record(_ elapsed: Duration) {
        if elapsed > Self.slow {
            entries = max(Self.minimum, entries / 2)
        } else if elapsed < Self.slow / 2 {
            entries = min(Self.initial, entries * 2)
        }
    }
}
