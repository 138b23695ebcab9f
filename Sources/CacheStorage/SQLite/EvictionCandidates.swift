/// The entries one eviction slice takes (see ``MetadataIndex/evictionCandidates(bytesToFree:entriesToFree:now:atMost:unlessNeededFor:)``).
struct EvictionCandidates {
    var victims: [EvictionVictim] = []
    /// When the victims are exactly the first rows in access order (no expired entry among them),
    /// the last of them, with its access time: their rows are then deleted as one range of the
    /// access-order index instead of one by one (see ``MetadataIndex/delete(_:)``).
    var accessOrderEnd: (lastAccess: Int64, row: IndexRowKey)?

    var isEmpty: Bool { victims.isEmpty }
}
