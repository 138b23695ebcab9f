import CLMDB
import CLMDBGuard
import Foundation

/// The floor under the store's inserts and reads, measured in the same run: the same bytes,
/// under a 16-byte hash of the same keys (random order, as the store's digests are), put into
/// one LMDB database in transactions of `batch` entries, never synced. No records, journal,
/// index, checksums or syncs: what the store adds on top of LMDB is the difference.
struct RawLMDBBaseline {
    let folder: URL
    let batch: Int

    struct Failure: Error, CustomStringConvertible {
        let code: Int32
        let operation: String
        var description: String { "raw LMDB baseline: \(operation): \(String(cString: mdb_strerror(code)))" }
    }

    func run(_ workload: inout FeedWorkload, reads: Int) throws -> BenchReport {
        var report = BenchReport()
        report.unmeasured = [.open, .eviction, .putsDuringEviction, .memory]
        report.entries = workload.sizes.count
        report.bytes = workload.totalBytes
        report.reads = reads
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])

        var environment: OpaquePointer?
        try check(mdb_env_create(&environment), "create the environment")
        defer { mdb_env_close(environment) }
        try check(mdb_env_set_mapsize(environment, workload.totalBytes * 2 + (64 << 20)), "size the map")
        try check(mdb_env_open(environment, folder.path, UInt32(MDB_NOSYNC | MDB_NOTLS), 0o600), "open \(folder.path)")

        // Making the bytes is timed, as in the store's insert phase.
        var database: MDB_dbi = 0
        let insertStart = ContinuousClock.now
        for start in stride(from: 0, to: workload.sizes.count, by: batch) {
            var txn: OpaquePointer?
            try check(mdb_txn_begin(environment, nil, 0, &txn), "begin a write")
            do {
                if start == 0 { try check(mdb_dbi_open(txn, nil, 0, &database), "open the database") }
                for index in start..<min(start + batch, workload.sizes.count) {
                    let data = workload.bytes(count: workload.sizes[index])
                    var key = Self.digest(FeedWorkload.key(index))
                    try key.withUnsafeMutableBytes { keyBytes in
                        try data.withUnsafeBytes { dataBytes in
                            var keyValue = MDB_val(mv_size: keyBytes.count, mv_data: keyBytes.baseAddress)
                            var value = MDB_val(mv_size: dataBytes.count, mv_data: UnsafeMutableRawPointer(mutating: dataBytes.baseAddress))
                            try check(mdb_put(txn, database, &keyValue, &value, 0), "put")
                        }
                    }
                }
                try check(mdb_txn_commit(txn), "commit")
            } catch {
                mdb_txn_abort(txn)
                throw error
            }
        }
        report.insertSeconds = (ContinuousClock.now - insertStart).seconds

        // Reads: one snapshot each (reset and renewed, as the store's reader pool does), the
        // bytes copied out, as the store's `get` returns them.
        let sequence = workload.zipfReads(count: reads)
        var latencies = [Double](repeating: 0, count: reads)
        var txn: OpaquePointer?
        try check(mdb_txn_begin(environment, nil, UInt32(MDB_RDONLY), &txn), "begin a read")
        defer { mdb_txn_abort(txn) }
        mdb_txn_reset(txn)
        let faultsBeforeReads = ProcessMemory.majorFaults()
        let readStart = ContinuousClock.now
        for (position, number) in sequence.enumerated() {
            let start = ContinuousClock.now
            try check(mdb_txn_renew(txn), "renew a read")
            var key = Self.digest(FeedWorkload.key(number))
            let found: Data? = key.withUnsafeMutableBytes { keyBytes in
                var keyValue = MDB_val(mv_size: keyBytes.count, mv_data: keyBytes.baseAddress)
                var value = MDB_val()
                guard mdb_get(txn, database, &keyValue, &value) == 0 else { return nil }
                return Data(bytes: value.mv_data, count: value.mv_size)
            }
            mdb_txn_reset(txn)
            if let found { report.bytesRead += found.count } else { report.readMisses += 1 }
            latencies[position] = (ContinuousClock.now - start).seconds * 1_000_000
        }
        report.readSeconds = (ContinuousClock.now - readStart).seconds
        report.readMajorFaults = ProcessMemory.majorFaults() - faultsBeforeReads
        latencies.sort()
        report.readP50Microseconds = BenchRunner.percentile(50, of: latencies)
        report.readP99Microseconds = BenchRunner.percentile(99, of: latencies)
        report.guardedReadCost = try guardedReadCost(txn, database, sequence)
        return report
    }

    /// What the store's fault guard (`CLMDBGuard`: a landing per call, the value's bounds
    /// checked) costs a read: the same reads through `lmdb_guard_get` and through `mdb_get`, in
    /// three pairs of alternating order, as the median ratio of their times.
    private func guardedReadCost(_ txn: OpaquePointer?, _ database: MDB_dbi, _ sequence: [Int]) throws -> Double {
        let keys = sequence.map { Self.digest(FeedWorkload.key($0)) }
        func time(guarded: Bool) throws -> Double {
            let start = ContinuousClock.now
            for var key in keys {
                try check(mdb_txn_renew(txn), "renew a read")
                let count = key.withUnsafeMutableBytes { keyBytes in
                    var keyValue = MDB_val(mv_size: keyBytes.count, mv_data: keyBytes.baseAddress)
                    var value = MDB_val()
                    let code = guarded ? lmdb_guard_get(txn, database, &keyValue, &value) : mdb_get(txn, database, &keyValue, &value)
                    return code == 0 ? Data(bytes: value.mv_data, count: value.mv_size).count : 0
                }
                mdb_txn_reset(txn)
                if count < 0 { throw Failure(code: EINVAL, operation: "read") }
            }
            return (ContinuousClock.now - start).seconds
        }
        lmdb_guard_install()
        var ratios: [Double] = []
        for pair in 0..<3 {
            let guardedFirst = pair % 2 == 0
            let first = try time(guarded: guardedFirst)
            let second = try time(guarded: !guardedFirst)
            ratios.append(guardedFirst ? first / second : second / first)
        }
        return ratios.sorted()[1]
    }

    /// 16 bytes from two FNV-1a hashes of `key`: random order, like the store's digests.
    static func digest(_ key: String) -> [UInt8] {
        var first: UInt64 = 0xcbf2_9ce4_8422_2325
        var second: UInt64 = 0x6c62_272e_07bb_0142
        for byte in key.utf8 {
            first = (first ^ UInt64(byte)) &* 0x100_0000_01b3
            second = (second ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return withUnsafeBytes(of: (first.littleEndian, second.littleEndian)) { Array($0) }
    }

    private func check(_ code: Int32, _ operation: String) throws {
        if code != 0 { throw Failure(code: code, operation: operation) }
    }
}
