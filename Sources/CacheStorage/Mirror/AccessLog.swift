import Foundation

/// Reads recorded in memory, persisted to SQLite in batches by the writer, never on the read path.
///
/// One SQLite `UPDATE` per read would cost more than the LMDB read itself; here a read costs one
/// dictionary store under a lock, and repeated reads of one entry collapse into one update.
///
/// At most ``capacity`` distinct entries wait: reads of more distinct entries than the writer
/// persists meanwhile would otherwise hold memory in proportion to the store. Past it, a read of an entry not yet waiting counts as a
/// hit but leaves the entry's last access where it was, so a storm of reads makes eviction order
/// approximate for those entries, never memory grow.
///
/// The writer takes what waits in one swap under the readers' lock, into a backlog of its own
/// that it persists a pass at a time (see ``drain(limit:)``): the readers' lock is never held for
/// longer than that swap, by a writer thread that runs below the app's (``BackgroundThread``) and
/// could otherwise be preempted while a reader waits for it.
final class AccessLog: Sendable {
    /// The most distinct entries whose reads wait to be persisted, in the log and its backlog.
    static let capacity = 1 << 16
    /// Room for the reads recorded between two drains while the writer keeps pace (the default
    /// flush threshold, 1,024 distinct entries, and those that come while it wakes): a log emptied
    /// to no room regrew its table step by step after every drain, on the readers' path. While
    /// reads stream in, the writer holds them back (``ReadPersistenceSchedule``) and the table
    /// grows past this as they come: a few doublings between drains, a second or more apart.
    static let roomAfterDrain = 2_048

    private struct State {
        var lastAccess: [IndexRowKey: Int64] = [:]
        /// How many accesses the backlog holds (at most; exact after each drain).
        var backlogCount = 0
        var hits: Int64 = 0
        var misses: Int64 = 0
        /// Reads refused because the entry's bytes were damaged.
        var damagedReads: Int64 = 0
        /// When the newest read was recorded, for ``ReadPersistenceSchedule``.
        var newestRead: Int64 = 0
    }

    private let state = Locked(State())
    /// Accesses taken from `state` but not yet handed to the writer; touched by the writer's drain
    /// and by `pendingAccess`, never by a read.
    private let backlog = Locked<[IndexRowKey: Int64]>([:])

    /// Records a hit; returns how many distinct entries wait to be persisted (at most, as
    /// ``waiting()``), and whether this read added one to that count (its entry was not in the
    /// log since the last drain; one waiting in the backlog counts again until the next).
    func recordHit(_ row: IndexRowKey, at milliseconds: Int64) -> (waiting: Int, isNew: Bool) {
        state.withLock { state in
            let isNew = Self.record(row, at: milliseconds, in: &state)
            state.hits += 1
            return (state.lastAccess.count + state.backlogCount, isNew)
        }
    }

    /// How many distinct entries wait to be persisted (at most), and when the newest read came.
    func waiting() -> (count: Int, newestRead: Int64) {
        state.withLock { ($0.lastAccess.count + $0.backlogCount, $0.newestRead) }
    }

    /// Moves `row`'s last access without counting a hit (a read on its behalf, such as of an
    /// entry derived from it).
    func recordAccess(_ row: IndexRowKey, at milliseconds: Int64) {
        state.withLock { _ = Self.record(row, at: milliseconds, in: &$0) }
    }

    /// Whether `row` was added, not waiting in the log before (the backlog is not looked at).
    private static func record(_ row: IndexRowKey, at milliseconds: Int64, in state: inout State) -> Bool {
        state.newestRead = milliseconds
        if state.lastAccess.count + state.backlogCount < capacity {
            return state.lastAccess.updateValue(milliseconds, forKey: row) == nil
        }
        if state.lastAccess[row] != nil { state.lastAccess[row] = milliseconds }
        return false
    }

    func recordMiss() {
        state.withLock { $0.misses += 1 }
    }

    /// Records a read refused because the entry's bytes are damaged (a read that counts as one
    /// records its miss as well, with ``recordMiss()``).
    func recordDamagedRead() {
        state.withLock { $0.damagedReads += 1 }
    }

    /// A pending access time not yet persisted, if any.
    func pendingAccess(_ row: IndexRowKey) -> Int64? {
        // The backlog's lock first, as `drain` takes them: an access moving from one to the
        // other is seen in one of them.
        backlog.withLock { backlog in state.withLock { $0.lastAccess[row] } ?? backlog[row] }
    }

    /// Takes what was recorded so far: every access, or at most `limit` of them (the rest stay in
    /// the backlog for the next drain), and the counters. `remaining` says how many accesses stayed.
    /// One caller at a time: the writer thread (or closing, once it has ended).
    func drain(limit: Int = .max) -> (
        accesses: [IndexRowKey: Int64], hits: Int64, misses: Int64, damagedReads: Int64, remaining: Int
    ) {
        // Made before taking the lock, so that readers wait for a swap and no allocation.
        var emptied: [IndexRowKey: Int64]? = Dictionary(minimumCapacity: Self.roomAfterDrain)
        let drained = backlog.withLock { backlog -> (
            taken: [IndexRowKey: Int64], hits: Int64, misses: Int64, damagedReads: Int64, remaining: Int
        ) in
            let (recorded, hits, misses, damagedReads) = state.withLock { state in
                defer {
                    // At most: the merge below only removes duplicates.
                    state.backlogCount += state.lastAccess.count
                    state.lastAccess = emptied.take() ?? [:]
                    state.hits = 0
                    state.misses = 0
                    state.damagedReads = 0
                }
                return (state.lastAccess, state.hits, state.misses, state.damagedReads)
            }
            // Recorded since the backlog was filled: newer, unless a clock went back. An empty
            // backlog (every drain but one after a partial take) takes the recorded ones as they are.
            if backlog.isEmpty { backlog = recorded } else { backlog.merge(recorded) { max($0, $1) } }
            guard backlog.count > limit else {
                defer { backlog = [:] }
                return (backlog, hits, misses, damagedReads, 0)
            }
            var taken: [IndexRowKey: Int64] = [:]
            taken.reserveCapacity(limit)
            for (row, milliseconds) in backlog.prefix(limit) { taken[row] = milliseconds }
            for row in taken.keys { backlog.removeValue(forKey: row) }
            return (taken, hits, misses, damagedReads, backlog.count)
        }
        state.withLock { $0.backlogCount = drained.remaining }
        return (drained.taken, drained.hits, drained.misses, drained.damagedReads, drained.remaining)
    }
}
