import Foundation

/// Periodic syncs and the index's checkpoints, as the writer asks for them.
extension StoreCore {
    /// In periodic durability, syncs LMDB once the interval has passed since the last sync, after a
    /// write-back beside the writer (see ``PeriodicFlushState``); `soon` as the store goes idle.
    func flushIfDue(force: Bool = false, soon: Bool = false) {
        guard case let .periodic(interval) = configuration.durability else { return }
        let step = durability.flushState.withLock { $0.step(now: .now, interval: interval, force: force, soon: soon) }
        switch step {
        case .nothing: return
        case .askForWriteBack:
            durability.writeback.request(.writeBackBlobs)
            return
        case .sync: break
        }
        do {
            try blobs.sync()
            durability.flushState.withLock { $0.synced(at: .now) }
        } catch {
            space.warnOnce("flush", "Could not flush the blob store", error: error)
        }
    }

    /// Keeps the index's write-ahead log short: checkpoints beside the writer normally, and the
    /// log made to start over on the writer past its bound; on the writer, and truncating the log,
    /// when free space binds (the log takes volume space too).
    func checkpointIndexIfLarge() {
        if space.isTight {
            index.checkpointIfLarge(thresholdBytes: 256 << 10, truncating: true)
        } else {
            if index.uncheckpointedLogBytes > Self.indexLogCheckpointBytes { durability.writeback.request(.checkpointIndex) }
            index.restartLogIfPastBound(catchUpBytes: Self.indexLogCheckpointBytes)
        }
    }

    /// The write-ahead log size past which the index is checkpointed.
    static let indexLogCheckpointBytes = 4 << 20
}
