import CLMDB
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The map: its size, how it grows, the ceiling the store's free space sets it, and what it holds.
extension BlobStore {
    /// Bytes the data file already holds that new pages can reuse without the file growing:
    /// LMDB's free pages plus any pages written past the last committed one by a failed commit.
    func reusableBytes() throws -> Int {
        try environment.withSharedLock { env in
            try ensureOpen()
            let pages = Self.pageUsage(env.handle)
            let tail = max(0, (directory.appendingPathComponent("data.mdb").fileSize ?? 0) - pages.usedBytes)
            let page = pages.pageBytes
            var txn: OpaquePointer?
            guard mdb_txn_begin(env.handle, nil, UInt32(MDB_RDONLY), &txn) == 0, let txn else { return tail }
            defer { mdb_txn_abort(txn) }
            var freePages = 0
            // The free-page database (handle 0) holds lists of page numbers, each led by its count.
            try LMDBTransaction(handle: txn).forEach(0) { _, value in
                if value.count >= MemoryLayout<Int>.size { freePages += value.loadUnaligned(as: Int.self) }
                return true
            }
            return tail + freePages * page
        }
    }

    /// Unmaps from this process the whole pages of the map that `bytes`, read through it, covers
    /// (their file pages stay in the page cache). Pages only partly covered stay: they hold
    /// their neighbours too.
    static func unmapPages(of bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        let page = UInt(sysconf(Int32(_SC_PAGESIZE)))
        let start = (UInt(bitPattern: base) + page - 1) / page * page
        let end = (UInt(bitPattern: base) + UInt(bytes.count)) / page * page
        guard end > start, let first = UnsafeMutableRawPointer(bitPattern: start) else { return }
        _ = madvise(first, Int(end - start), MADV_DONTNEED)
    }

    /// Unmaps the whole map from this process, at most once every ``mapReleaseInterval``. A read
    /// of a large blob unmaps its own pages; what else is read through the map (records, B-tree
    /// pages, small entries, each faulted in with the neighbours the kernel maps around a fault,
    /// often entries just written) would otherwise stay resident and grow with the store. The
    /// file's pages stay in the page cache: the next read faults them back without the disk.
    func releaseMappedPagesIfDue() {
        let due = lastMapRelease.withLock { last in
            guard ContinuousClock.now - last >= Self.mapReleaseInterval else { return false }
            last = .now
            return true
        }
        guard due else { return }
        environment.withSharedLock { env in
            guard !isClosed.withLock({ $0 }) else { return }
            Self.advise(env.handle, MADV_DONTNEED)
        }
    }

    /// How often ``releaseMappedPagesIfDue()`` unmaps the map.
    static let mapReleaseInterval = Duration.seconds(1)

    /// Another process grew the map: take the new size.
    func adoptResizedMap() throws {
        try environment.withLock { env in
            try ensureOpen()
            dropReadPool()
            try LMDBError.check(mdb_env_set_mapsize(env.handle, 0), "adopt the resized map")
            var info = MDB_envinfo()
            mdb_env_info(env.handle, &info)
            env.mapBytes = info.me_mapsize
        }
    }

    /// Doubles the map (LMDB's file grows only as pages are used; the map is address space), up
    /// to the growth ceiling when `respectingCeiling`: at the ceiling, throws
    /// ``GrowthCeilingReached``. A write that passes the ceiling (one that frees space) lifts it
    /// until the store sets it again.
    func growMap(respectingCeiling: Bool) throws {
        try environment.withLock { env in
            try ensureOpen()
            var info = MDB_envinfo()
            mdb_env_info(env.handle, &info)
            var newSize = Self.roundToPages(max(info.me_mapsize, env.mapBytes) * 2)
            if let ceiling = env.growthCeiling {
                if respectingCeiling {
                    guard info.me_mapsize < ceiling else { throw GrowthCeilingReached(ceilingBytes: ceiling) }
                    newSize = min(newSize, ceiling)
                } else {
                    env.growthCeiling = nil
                }
            }
            dropReadPool()
            try LMDBError.check(mdb_env_set_mapsize(env.handle, newSize), "grow the map")
            env.mapBytes = max(env.mapBytes, newSize)
        }
    }

    /// Holds the data file at `bytes` at most (rounded down to 256 KiB, so that small changes in
    /// the volume's free space do not remap LMDB's file at every batch), or lifts the hold (nil):
    /// the map is cut to that size, so a write that needs pages past it fails with
    /// ``GrowthCeilingReached`` instead of growing the file into space the volume must keep free.
    /// LMDB never maps less than the file holds, so the file is only ever stopped, not cut.
    func limitGrowth(to bytes: Int?) throws {
        let ceiling = bytes.map { max(1 << 20, ($0 >> 18) << 18) }
        guard environment.withSharedLock({ $0.growthCeiling }) != ceiling else { return }
        try environment.withLock { env in
            try ensureOpen()
            let unbounded = env.mapBytes
            dropReadPool()
            try LMDBError.check(mdb_env_set_mapsize(env.handle, min(ceiling ?? unbounded, unbounded)), "resize the map")
            env.growthCeiling = ceiling
        }
    }

    /// A write needed the data file to grow past the ceiling the store set (``limitGrowth(to:)``).
    struct GrowthCeilingReached: Error {
        let ceilingBytes: Int
    }

    /// Map size, pages in use and page size, for statistics.
    func usage() throws -> (mapBytes: Int, usedBytes: Int, pageBytes: Int) {
        try environment.withSharedLock { env in
            try ensureOpen()
            return Self.pageUsage(env.handle)
        }
    }

    /// Map size, bytes up to the last page in use, page size; the caller holds `environment`'s lock.
    static func pageUsage(_ environment: OpaquePointer) -> (mapBytes: Int, usedBytes: Int, pageBytes: Int) {
        var info = MDB_envinfo()
        var stat = MDB_stat()
        mdb_env_info(environment, &info)
        mdb_env_stat(environment, &stat)
        let page = Int(stat.ms_psize)
        return (info.me_mapsize, (Int(info.me_last_pgno) + 1) * page, page)
    }
}
