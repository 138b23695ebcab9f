/// What keeps the index a mirror of LMDB in this process: the reads waiting to be persisted, the
/// thread that writes index rows beside the writer, how far the index has mirrored the journal,
/// and when recorded reads are persisted.
struct IndexMirroring: Sendable {
    /// Reads recorded since the last pass persisted them (see ``AccessLog``).
    let accessLog = AccessLog()
    /// Index work the writer runs beside LMDB's (see ``IndexHelper``).
    let helper = IndexHelper()
    /// The journal sequence last mirrored into SQLite: entries at or below it may be trimmed.
    let appliedSequence: Locked<UInt64>
    /// Whether an idle pass persists recorded reads now or once they pause.
    let readSchedule = Locked(ReadPersistenceSchedule())

    init(appliedSequence: UInt64) {
        self.appliedSequence = Locked(appliedSequence)
    }
}
