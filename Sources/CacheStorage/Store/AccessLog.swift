import Foundation

/// Reads recorded in memory, persisted to SQLite in batches by the writer, never on the read path.
///
/// One SQLite `UPDATE` per read would cost more than the LMDB read itself; here a read costs one
/// dictionary store under a lock, and repeated reads of one entry collapse into one update.
///
/// At most ``capacity`` distinct entries wait (about 3 MB): reads of more distinct entries than the
/// writer persists meanwhile would otherwise hold memory in proportion to the store (a million reads
/// of a million entries held 20 MB more). Past it, a read of an entry not yet waiting counts as a
/// hit but leaves the entry's last access where it was, so a storm of reads makes eviction order
/// approximate for those entries, never memory grow.
final class AccessLog: Sendable {
    /// The most distinct entries whose reads wait to be persisted.
    static let capacity = 1 << 16

    private struct State {
        var lastAccess: [IndexRowKey: Int64] = [:]
        var hits: Int64 = 0
        var misses: Int64 = 0
    }

    private let state = Locked(State())

    /// Records a hit; returns how many distinct entries wait to be persisted.
    func recordHit(_ row: IndexRowKey, at milliseconds: Int64) -> Int {
        state.withLock { state in
            Self.record(row, at: milliseconds, in: &state)
            state.hits += 1
            return state.lastAccess.count
        }
    }

    /// Moves `row`'s last access without counting a hit (a read on its behalf, such as of an
    /// entry derived from it).
    func recordAccess(_ row: IndexRowKey, at milliseconds: Int64) {
        state.withLock { Self.record(row, at: milliseconds, in: &$0) }
    }

    private static func record(_ row: IndexRowKey, at milliseconds: Int64, in state: inout State) {
        if state.lastAccess.count < capacity || state.lastAccess[row] != nil { state.lastAccess[row] = milliseconds }
    }

    func recordMiss() {
        state.withLock { $0.misses += 1 }
    }

    /// A pending access time not yet persisted, if any.
    func pendingAccess(_ row: IndexRowKey) -> Int64? {
        state.withLock { $0.lastAccess[row] }
    }

    /// Takes what was recorded so far: every access, or at most `limit` of them (the rest stay for
    /// the next drain), and the counters. `remaining` says how many accesses stayed.
    func drain(limit: Int = .max) -> (accesses: [IndexRowKey: Int64], hits: Int64, misses: Int64, remaining: Int) {
        state.withLock { state in
            let counters = (state.hits, state.misses)
            state.hits = 0
            state.misses = 0
            guard state.lastAccess.count > limit else {
                defer { state.lastAccess = [:] }
                return (state.lastAccess, counters.0, counters.1, 0)
            }
            var taken: [IndexRowKey: Int64] = [:]
            taken.reserveCapacity(limit)
            for (row, milliseconds) in state.lastAccess.prefix(limit) { taken[row] = milliseconds }
            for row in taken.keys { state.lastAccess.removeValue(forKey: row) }
            return (taken, counters.0, counters.1, state.lastAccess.count)
        }
    }
}
