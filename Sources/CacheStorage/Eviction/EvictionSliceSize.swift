/// How many entries the next slice of a mass eviction takes (see `StoreCore.evict`).
///
/// A put queued during a mass eviction waits for the slice under way, and a slice's cost can grow
/// with the store: when records were keyed by digest each deletion dirtied a leaf of that B-tree,
/// one page per entry once the tree was much larger than the slice, so a slice of a fixed count took
/// longer the larger the store. (Records are now deleted from the
/// front of the record log, see ``RecordLocation``; the sizing stays for slices slowed by their
/// index rows or a loaded disk.) Slices start at ``initial`` and are halved
/// while one takes longer than ``slow`` (down to ``minimum``), doubled back while one takes under
/// half of that: a put waits about the same whatever the store's size, and a small store's
/// eviction is not slowed by slices smaller than it needs. A lower threshold shortens a put's wait
/// further but doubles the slices, and with the puts between them the eviction takes far longer.
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
