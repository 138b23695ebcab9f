/// The entries one eviction slice takes (see ``MetadataIndex/evictionCandidates(bytesToFree:entriesToFree:now:atMost:unlessNeededFor:)``).
struct EvictionCandidates {
    var victims: [EvictionVictim] = []
    /// The victims' bytes, as their rows give them.
    var bytes: Int64 = 0
    /// When the victims are exactly the first rows in access order (no expired entry among them),
    /// the last of them, with its access time: their rows are then deleted as one range of the
    /// access-order index instead of one by one (see ``MetadataIndex/delete(_:)``).
    var accessOrderEnd: (lastAccess: Int64, row: IndexRowKey)?
    /// The write transaction they were chosen in (``SQLiteConnection/writeTransaction``), nil
    /// when chosen outside one: only in that transaction is the range still exactly the victims.
    var chosenInTransaction: Int?

    var isEmpty: Bool { victims.isEmpty }
}
