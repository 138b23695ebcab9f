import Synchronization

/// What this process knows of the index's write-ahead log between commits: how far it has grown,
/// how much the last checkpoint copied back, and the writer's restarts of it (see
/// `MetadataIndex+Log.swift`). Atomics: SQLite's WAL hook, the checkpointing thread and the
/// writer each update their part.
final class IndexLogProgress: Sendable {
    /// Frames in the write-ahead log after this process's last commit (SQLite's WAL hook reports it).
    let framesInLog = Atomic<Int>(0)
    /// Frames the last checkpoint copied back: those below it cost nothing to keep.
    let framesCheckpointed = Atomic<Int>(0)
    /// Checkpoints `checkpointBesideWriter` has run, for tests of how often the writer asks.
    let checkpointsBesideWriter = Atomic<Int>(0)
    /// Times the writer made the log start over (see ``MetadataIndex/restartLogIfPastBound(catchUpBytes:)``).
    let restarts = Atomic<Int>(0)
    /// When (`DispatchTime` uptime nanoseconds) the log may next be made to start over, after an
    /// attempt that found a reader staying in it.
    let restartNotBefore = Atomic<UInt64>(0)
}
