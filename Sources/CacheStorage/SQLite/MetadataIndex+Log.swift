import CSQLite
import Foundation
import Synchronization

/// The write-ahead log: how much it holds, and checkpoints that copy it back.
extension MetadataIndex {
    func watchLog() {
        sqlite3_wal_hook(writer.handle, { context, _, _, frames in
            let index = Unmanaged<MetadataIndex>.fromOpaque(context!).takeUnretainedValue()
            // Fewer frames than before: the log restarted from its beginning, and what the last
            // checkpoint copied is behind it. (A checkpoint that ends just after a restart may
            // record its count late: the next checkpoint then comes at most one threshold late.)
            if Int(frames) < index.framesInLog.exchange(Int(frames), ordering: .relaxed) {
                index.framesCheckpointed.store(0, ordering: .relaxed)
            }
            return SQLITE_OK
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// The write-ahead log's size on disk.
    var logBytes: Int { URL(fileURLWithPath: path + "-wal").fileSize ?? 0 }

    /// Bytes written to the write-ahead log, as of this process's last commit, that no checkpoint
    /// has copied back yet. The file's size cannot tell: SQLite reuses a checkpointed log from its
    /// start without shrinking it, so a log once past a threshold would stay past it.
    var uncheckpointedLogBytes: Int {
        max(0, framesInLog.load(ordering: .relaxed) - framesCheckpointed.load(ordering: .relaxed)) * pageBytes
    }

    /// Copies the write-ahead log back into the database when it has grown past `thresholdBytes`.
    /// Passive: never waits for readers, in this process or another.
    /// With `truncating`, the log file is also cut back to nothing when no reader is in it (for a
    /// volume short of space, where the log's size counts against the store).
    func checkpointIfLarge(thresholdBytes: Int, truncating: Bool = false) {
        guard isPersistent else { return }
        let walSize = logBytes
        guard walSize > thresholdBytes, walSize > 0 else { return }
        try? writer.execute("PRAGMA wal_checkpoint(PASSIVE)")
        if truncating {
            // Never waits: a reader in the log (this process or another) just leaves it for later.
            sqlite3_busy_timeout(writer.handle, 0)
            try? writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            sqlite3_busy_timeout(writer.handle, Self.busyTimeoutMilliseconds)
        }
    }

    /// A passive checkpoint on a connection of its own, for a thread beside the writer (see
    /// ``BackgroundWriteback``): it copies what no reader still needs and never blocks the writer.
    func checkpointBesideWriter() {
        guard isPersistent else { return }
        checkpointer.withLock { connection in
            if connection == nil {
                connection = try? SQLiteConnection(path: path)
                // A connection learns the file is in WAL mode when it first reads it; until then
                // a checkpoint call reports "not in WAL mode" and copies nothing.
                _ = try? connection?.scalar("PRAGMA journal_mode")
            }
            // Busy (another process checkpointing) or failed: the writer's next request retries.
            guard let handle = connection?.handle else { return }
            checkpointsBesideWriter.add(1, ordering: .relaxed)
            var frames: Int32 = 0
            var copied: Int32 = 0
            if sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, &frames, &copied) == SQLITE_OK {
                framesCheckpointed.store(Int(copied), ordering: .relaxed)
            }
            // A busy writer appends while a passive checkpoint copies, so the log never drains
            // and never starts over. Past the bound, a restarting checkpoint holds the writer's
            // next commit back until it has copied the little the passive one left and synced the
            // database (here, not on the writer), and readers have left the log; the writer's next
            // commit then starts the log over and cuts its file back to the bound.
            let now = DispatchTime.now().uptimeNanoseconds
            guard Int(frames) * pageBytes > logBoundBytes, now >= restartNotBefore.load(ordering: .relaxed) else { return }
            sqlite3_busy_timeout(handle, Self.restartWaitMilliseconds)
            if sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_RESTART, &frames, &copied) == SQLITE_OK {
                framesCheckpointed.store(Int(copied), ordering: .relaxed)
                logRestarts.add(1, ordering: .relaxed)
            } else {
                // Busy: a reader stayed in the log (a long listing in another process), or another
                // process was checkpointing. Waiting held the writer back, so the next attempt
                // waits a while.
                restartNotBefore.store(now + Self.restartPauseNanoseconds, ordering: .relaxed)
            }
            sqlite3_busy_timeout(handle, 0)
        }
    }

    /// How long a restarting checkpoint waits for the writer's transaction to end and for readers
    /// to leave the log before it gives up.
    static let restartWaitMilliseconds: Int32 = 1_000
    /// How long after a restart that gave up the next one may be tried: the writer is held back a
    /// tenth of the time at most while a reader stays in the log.
    static let restartPauseNanoseconds: UInt64 = 10_000_000_000
}
