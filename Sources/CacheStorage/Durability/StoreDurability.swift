/// What makes commits durable beside the writer: the thread that writes back and checkpoints
/// for it, and periodic durability's bookkeeping (see ``PeriodicFlushState``).
struct StoreDurability: Sendable {
    /// Checkpoints and write-back the writer asks for without waiting on them.
    let writeback = BackgroundWriteback()
    /// When the writer last synced and whether a sync waits for a write-back.
    let flushState = Locked(PeriodicFlushState(last: ContinuousClock.now))
}
