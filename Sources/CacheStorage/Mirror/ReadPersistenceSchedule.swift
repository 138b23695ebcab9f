/// When recorded reads are persisted: once the reads pause, not while they stream in.
///
/// Persisting a read rewrites its entry's row and the row's place in the access-order index: two
/// random pages of the index file a read. Done as the reads come in, that work competes with the
/// reader for the processor and its caches and slows a stream of reads far more than it costs
/// once they have ended (see Benchmarks/RESULTS.md, `cachectl bench --sizes tiny`). So an idle pass that finds reads still arriving waits for a
/// pause of ``quietPeriod``, at most ``longestWait`` in all, then persists everything waiting, a
/// pass at a time, before it waits again. Memory stays bounded by the log's capacity: once
/// ``highWater`` distinct reads wait, they are persisted at once, as they arrive.
///
/// Times are the access log's: wall-clock milliseconds. A clock that went back persists at once.
/// Used by the writer thread alone (``StoreCore`` keeps it under a lock for the type system).
struct ReadPersistenceSchedule: Sendable {
    enum Decision: Equatable {
        case persist
        /// Look again at this time (milliseconds since 1970), unless woken sooner.
        case wait(untilMilliseconds: Int64)
    }

    /// How long no read may have arrived for the reads to count as paused: longer than a frame
    /// (a feed scrolling reads a few entries each), short enough that an app going idle has its
    /// reads persisted at once.
    static let quietPeriod: Int64 = 100
    /// The longest an idle pass holds reads back while they keep arriving: a process killed
    /// meanwhile loses at most this much of its eviction order.
    static let longestWait: Int64 = 1_000
    /// Distinct reads waiting past which they are persisted while still arriving, below the
    /// log's capacity so that reads keep moving their entries' last access while the writer
    /// catches up.
    static let highWater = AccessLog.capacity * 3 / 4

    /// When the first pass that held reads back ran; nil when none is holding back.
    private var waitingSince: Int64?
    /// Set once persisting has begun, until a pass leaves nothing waiting.
    private var draining = false

    /// Whether an idle pass persists the reads now, given how many distinct reads wait, when the
    /// newest of them arrived, and the time.
    mutating func decide(waiting: Int, newestRead: Int64, now: Int64) -> Decision {
        if waiting == 0 {
            waitingSince = nil
            draining = false
            return .persist
        }
        if draining || waiting >= Self.highWater { return persist() }
        let since = waitingSince ?? now
        guard now >= newestRead, now >= since else { return persist() }
        if now - newestRead >= Self.quietPeriod || now - since >= Self.longestWait { return persist() }
        waitingSince = since
        return .wait(untilMilliseconds: min(newestRead + Self.quietPeriod, since + Self.longestWait))
    }

    /// Tells the schedule a pass persisted reads and `remaining` still wait in the backlog.
    mutating func persisted(remaining: Int) {
        if remaining == 0 { draining = false }
    }

    /// Whether a read that left `waiting` distinct reads recorded (`isNew`: one more than before)
    /// wakes the writer: when they first reach `threshold` (the writer then decides, above), and
    /// at every new one past ``highWater``. Not at every read past the threshold: a writer
    /// holding reads back would be woken by each.
    static func wakesWriter(waiting: Int, isNew: Bool, threshold: Int) -> Bool {
        isNew && (waiting == max(threshold, 1) || waiting >= highWater)
    }

    private mutating func persist() -> Decision {
        waitingSince = nil
        draining = true
        return .persist
    }
}
