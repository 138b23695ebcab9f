/// Where periodic durability stands between two marked syncs (see ``FlushMarker``).
///
/// A marked sync runs on the writer, so every put queued meanwhile waits for it; with many pages
/// dirty (a mass eviction, a burst of puts) its `fdatasync` takes long enough for puts issued
/// during an eviction to stall once a second. So when a sync is due, the writer first
/// asks the thread beside it (``BackgroundWriteback``) to write LMDB's pages back, without
/// marking anything, and runs the marked sync once that is done, when little is left to write.
struct PeriodicFlushState {
    /// When the last marked sync ran.
    var last: ContinuousClock.Instant
    /// Whether this process has committed since.
    var pending = false
    var writeBack = WriteBack.notAsked

    enum WriteBack {
        case notAsked
        case asked(at: ContinuousClock.Instant)
        case done
    }

    /// What the writer does next.
    enum Step {
        case nothing
        case askForWriteBack
        case sync
    }

    /// The next step: nothing until commits are pending and the interval has passed (at once when
    /// `soon`, as the store goes idle), then a write-back beside the writer, then the marked sync.
    /// `force` (closing, an explicit flush) syncs at once. A write-back still running a whole
    /// interval after it was asked for no longer defers the sync.
    mutating func step(now: ContinuousClock.Instant, interval: Duration, force: Bool, soon: Bool) -> Step {
        guard pending else { return .nothing }
        if force { return .sync }
        guard soon || now - last >= interval else { return .nothing }
        switch writeBack {
        case .notAsked:
            writeBack = .asked(at: now)
            return .askForWriteBack
        case let .asked(at):
            return now - at >= interval ? .sync : .nothing
        case .done:
            return .sync
        }
    }

    /// Records a write-back that finished; true when the writer was waiting for it.
    mutating func writeBackFinished() -> Bool {
        guard case .asked = writeBack else { return false }
        writeBack = .done
        return true
    }

    /// Records a marked sync.
    mutating func synced(at now: ContinuousClock.Instant) {
        self = PeriodicFlushState(last: now)
    }
}
