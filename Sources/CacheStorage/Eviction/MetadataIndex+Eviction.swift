import CSQLite
import Foundation

/// Choosing eviction's victims in the index, and deleting their rows.
extension MetadataIndex {
    /// Rows to evict, expired entries first (soonest-expired first), then least recently used,
    /// until `bytesToFree` and `entriesToFree` are both covered, or, once `slice` are chosen,
    /// as soon as `required` is (the part an eviction slice must free, see `StoreCore.evict`).
    func evictionCandidates(
        bytesToFree: Int, entriesToFree: Int, now: Date,
        atMost slice: Int = .max, unlessNeededFor required: (bytes: Int, entries: Int) = (0, 0)
    ) throws -> EvictionCandidates {
        var chosen = EvictionCandidates(chosenInTransaction: writer.writeTransaction)
        var seen = Set<IndexRowKey>()
        func done() -> Bool {
            let count = chosen.victims.count
            let freedBytes = Int(chosen.bytes)
            let reachedTargets = freedBytes >= bytesToFree && count >= entriesToFree
            let reachedRequired = freedBytes >= required.bytes && count >= required.entries
            return reachedTargets || (count >= slice && reachedRequired)
        }
        func victim(_ statement: SQLiteStatement) -> EvictionVictim? {
            Self.row(statement, column: 0).map {
                EvictionVictim(row: $0, blobNumber: statement.optionalInt64(3).map { UInt64(bitPattern: $0) })
            }
        }
        let expired = try writer.prepare(
            "SELECT stored_at, digest, byte_size, blob_number FROM entries WHERE expires_at <= ? ORDER BY expires_at")
        try expired.bind(1, now.millisecondsSince1970)
        while !done(), try expired.step() {
            guard let victim = victim(expired) else { continue }
            chosen.victims.append(victim)
            seen.insert(victim.row)
            chosen.bytes += expired.int64(2)
        }
        sqlite3_reset(expired.handle)
        guard !done() else { return chosen }
        let byAccess = try writer.prepare(Self.accessOrderVictims)
        var prefix = chosen.isEmpty
        while !done(), try byAccess.step() {
            guard let victim = victim(byAccess), seen.isEmpty || !seen.contains(victim.row) else {
                prefix = false
                continue
            }
            chosen.victims.append(victim)
            chosen.bytes += byAccess.int64(2)
            if prefix { chosen.accessOrderEnd = (byAccess.int64(4), victim.row) }
        }
        sqlite3_reset(byAccess.handle)
        if !prefix { chosen.accessOrderEnd = nil }
        return chosen
    }

    /// Every row with what eviction needs of it, least recently used first: in the access-order
    /// index's order, from that index alone (it holds each of these columns, see ``IndexSchema``).
    static let accessOrderVictims: StaticString = """
        SELECT stored_at, digest, byte_size, blob_number, last_access FROM entries
        ORDER BY last_access, stored_at, digest
        """

    /// Deletes the candidates' rows: the first rows in access order as one range of that index
    /// when they were chosen in the write transaction under way (no other connection has written
    /// since, so the range holds exactly them), otherwise row by row (see `delete(rows:)`).
    /// A range needs no temporary table to fill and walks the index once, where row by row looks
    /// each victim up; returning the deleted rows, to prove the range held the victims, would cost
    /// about as much as the deletion itself.
    /// - Returns: the change to the totals.
    func delete(_ candidates: EvictionCandidates) throws -> TotalsChange {
        guard let end = candidates.accessOrderEnd, let chosenIn = candidates.chosenInTransaction,
            chosenIn == writer.writeTransaction
        else { return try delete(rows: candidates.victims.map(\.row)) }
        try writer.execute("SAVEPOINT access_order_range")
        let statement = try writer.prepare("DELETE FROM entries WHERE (last_access, stored_at, digest) <= (?, ?, ?)")
        try statement.bind(1, end.lastAccess)
        try statement.bind(2, end.row.storedAt)
        try end.row.digest.withBytes { try statement.bind(3, blob: $0) }
        try statement.run()
        if sqlite3_changes(writer.handle) == candidates.victims.count {
            try writer.execute("RELEASE access_order_range")
            return TotalsChange(entries: -Int64(candidates.victims.count), bytes: -candidates.bytes)
        }
        // Only this connection's own writes since the choice can change the range; none is made
        // between them, and this keeps such a change from deleting a row that was not chosen.
        try writer.execute("ROLLBACK TO access_order_range")
        try writer.execute("RELEASE access_order_range")
        return try delete(rows: candidates.victims.map(\.row))
    }
}
