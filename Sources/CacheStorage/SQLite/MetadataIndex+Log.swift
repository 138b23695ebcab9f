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
            if Int(frames) < index.log.framesInLog.exchange(Int(frames), ordering: .relaxed) {
                index.log.framesCheckpointed.store(0, ordering: .relaxed)
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
        max(0, log.framesInLog.load(ordering: .relaxed) - log.framesCheckpointed.load(ordering: .relaxed)) * pageBytes
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
            log.checkpointsBesideWriter.add(1, ordering: .relaxed)
            var frames: Int32 = 0
            var copied: Int32 = 0
            if sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, &frames, &copied) == SQLITE_OK {
                log.framesCheckpointed.store(Int(copied), ordering: .relaxed)
            }
        }
    }

    /// Makes the log start over once it has grown past ``logBoundBytes``; on the writer's
    /// connection, between its transactions.
    ///
    /// A busy writer appends while a passive checkpoint copies, so the log never drains and never
    /// starts over: it would grow for as long as the writer stays busy, and an opener after a
    /// crash reads all of it. A checkpoint beside the writer cannot make it start over either: it
    /// would have to win SQLite's write lock from a writer that takes it back at once, and it only
    /// polls for it. Between two transactions the writer holds that lock uncontested: it copies
    /// the little the passive checkpoints left (it waits until they have caught up to within one
    /// request, or until the log is twice the bound), syncs the database, and its next commit
    /// starts the log over and cuts the file back to the bound. A reader in the log (a long
    /// listing in another process) or another process's checkpoint leaves the log as it is, and
    /// the next try comes a while later.
    func restartLogIfPastBound(catchUpBytes: Int) {
        guard isPersistent else { return }
        let logBytes = log.framesInLog.load(ordering: .relaxed) * pageBytes
        // The checkpoints beside the writer run at a lower priority and may fall behind on a busy
        // machine: at twice the bound the writer copies what they left itself.
        guard logBytes > logBoundBytes, uncheckpointedLogBytes <= catchUpBytes || logBytes > 2 * logBoundBytes else { return }
        // The clock only once the log is past its bound: this runs after every group commit.
        let now = DispatchTime.now().uptimeNanoseconds
        guard now >= log.restartNotBefore.load(ordering: .relaxed) else { return }
        // Not beside this process's own passive checkpoint, which holds SQLite's checkpoint lock.
        // Within twice the bound the writer does not wait for it, and tries again after its next
        // transaction; past that it waits for the one under way to end, or a write-back thread
        // that is always checkpointing on a loaded machine would keep the log from ever starting
        // over.
        let restart = { (_: inout SQLiteConnection?) -> Bool in
            sqlite3_busy_timeout(self.writer.handle, 0)
            defer { sqlite3_busy_timeout(self.writer.handle, Self.busyTimeoutMilliseconds) }
            var frames: Int32 = 0
            var copied: Int32 = 0
            guard sqlite3_wal_checkpoint_v2(self.writer.handle, nil, SQLITE_CHECKPOINT_RESTART, &frames, &copied) == SQLITE_OK
            else { return false }
            self.log.framesCheckpointed.store(Int(copied), ordering: .relaxed)
            return true
        }
        let attempt = logBytes > 2 * logBoundBytes ? checkpointer.withLock(restart) : checkpointer.withLockIfAvailable(restart)
        guard let restarted = attempt else { return }
        if restarted {
            log.restarts.add(1, ordering: .relaxed)
        } else {
            log.restartNotBefore.store(now + Self.restartPauseNanoseconds, ordering: .relaxed)
        }
    }

    /// How long after a restart that found the log in use the next one may be tried.
    static let restartPauseNanoseconds: UInt64 = 10_000_000_000
}
