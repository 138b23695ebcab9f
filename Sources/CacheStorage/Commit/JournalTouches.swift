/// The journal items a transaction's changes touched, in the order they were first touched: what
/// the transaction appends to the journal (see ``JournalItem``).
struct JournalTouches {
    private(set) var items: [JournalItem] = []
    private var positions: [KeyDigest: Int] = [:]

    /// Whether a digest touched again merges into its first journal item. An eviction's change
    /// sets turn it off: each victim is deleted once, and only a deletion that found something
    /// touches, so their digests come once each; hashing each victim's digest into a dictionary
    /// was a quarter of LMDB's part of a mass eviction. A repeat would cost nothing but an item:
    /// replay merges the items of one digest however many there are (see `journalItems(after:)`).
    private let merges: Bool

    init(merges: Bool) {
        self.merges = merges
    }

    /// Journals `digest`, and the index row `left` behind by a deletion or replacement.
    mutating func touch(_ digest: KeyDigest, leaving left: IndexRowKey? = nil) {
        guard merges else {
            items.append(JournalItem(digest: digest, rowsLeft: left.map { [$0.storedAt] } ?? []))
            return
        }
        let position: Int
        if let known = positions[digest] {
            position = known
        } else {
            position = items.count
            positions[digest] = position
            items.append(JournalItem(digest: digest))
        }
        if let left, !items[position].rowsLeft.contains(left.storedAt) { items[position].rowsLeft.append(left.storedAt) }
    }
}
