import CLMDB
import CLMDBGuard

/// Finds where a walk can go on past a damaged stretch of a database: the first key after the
/// last one read whose path from the root LMDB can still follow.
///
/// Keys are taken as big-endian numbers. Probes at the last key plus 1, 2, 4, … find a key past
/// the damage; a binary search between the last probe that failed and the first that did not
/// then finds the nearest such key, so a readable leaf just past a damaged one is not skipped.
/// Readable keys lying between two damaged stretches may be passed over: this is a salvage, and
/// every probe descends from the root, a few pages each.
enum DamagedKeyRange {
    /// Positions `cursor` on the first reachable key after `last` (from the smallest key of
    /// `last`'s length, or of 8 bytes, when nothing was read yet) and returns 0, or
    /// `MDB_NOTFOUND` when none is left, or the damage code when the search could not get past.
    /// `recover` runs before every probe: LMDB refuses every call of a transaction after it
    /// reported damage, until the transaction is renewed.
    static func seekPast(
        _ last: [UInt8]?, cursor: OpaquePointer?, key: inout MDB_val, value: inout MDB_val, recover: () -> Void
    ) -> Int32 {
        let base = last ?? [UInt8](repeating: 0, count: 8)
        let bits = base.count * 8
        // The first probe that lands: base + 2^exponent (base itself when nothing was read yet).
        var landed: Int?
        var lastCode: Int32 = MDB_CORRUPTED
        for exponent in (last == nil ? -1 : 0)..<bits {
            guard let probe = adding(power: exponent, to: base) else { return MDB_NOTFOUND }
            let code = seek(probe, cursor: cursor, key: &key, value: &value, recover: recover)
            if code == 0 {
                landed = exponent
                break
            }
            if code == MDB_NOTFOUND { return code }
            lastCode = code
        }
        guard let exponent = landed else { return lastCode }
        guard exponent > 0 else { return 0 }
        // base + 2^(exponent-1) failed and base + 2^exponent landed: look for the smallest
        // offset between that lands, one bit at a time from the top.
        var failing = adding(power: exponent - 1, to: base)!
        for bit in stride(from: exponent - 2, through: 0, by: -1) {
            guard let probe = adding(power: bit, to: failing) else { break }
            if seek(probe, cursor: cursor, key: &key, value: &value, recover: recover) != 0 { failing = probe }
        }
        guard let next = adding(power: 0, to: failing) else { return MDB_NOTFOUND }
        return seek(next, cursor: cursor, key: &key, value: &value, recover: recover)
    }

    private static func seek(
        _ probe: [UInt8], cursor: OpaquePointer?, key: inout MDB_val, value: inout MDB_val, recover: () -> Void
    ) -> Int32 {
        recover()
        return probe.withUnsafeBytes { bytes in
            key = MDB_val(mv_size: bytes.count, mv_data: UnsafeMutableRawPointer(mutating: bytes.baseAddress))
            return lmdb_guard_cursor_get(cursor, &key, &value, MDB_SET_RANGE)
        }
    }

    /// `number + 2^power` as a big-endian number of the same width (`number` itself for a
    /// negative power), or nil past the largest.
    static func adding(power: Int, to number: [UInt8]) -> [UInt8]? {
        guard power >= 0 else { return number }
        guard power < number.count * 8 else { return nil }
        var result = number
        var index = number.count - 1 - power / 8
        var carry = UInt16(1) << UInt16(power % 8)
        while carry > 0 {
            guard index >= 0 else { return nil }
            let sum = UInt16(result[index]) + carry
            result[index] = UInt8(truncatingIfNeeded: sum)
            carry = sum >> 8
            index -= 1
        }
        return result
    }
}
