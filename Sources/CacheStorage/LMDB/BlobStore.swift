import CLMDB
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The LMDB environment: entry records, blobs, the change journal and store info.
///
/// Concurrency: LMDB is opened with `MDB_NOTLS`, so read transactions may run on any thread, and
/// reset read transactions are pooled (`readPool`, guarded by its lock). Write transactions come
/// only from the store's single writer thread (and LMDB serialises writers across processes).
/// `mapLock` is taken shared by every transaction and exclusively by a map resize, because LMDB
/// must not resize while a transaction of this process is active.
final class BlobStore: @unchecked Sendable {
    /// The named databases inside the environment.
    struct Databases {
        let records: MDB_dbi
        let blobs: MDB_dbi
        let journal: MDB_dbi
        let info: MDB_dbi
    }

    /// Why the environment could not be opened: damaged files, or an ordinary failure.
    enum OpenFailure: Error {
        case damaged(String)
        case failed(StorageError)
    }

    let directory: URL
    /// Replaced only by `compactInPlace`, under `mapLock` held exclusively.
    private var environment: OpaquePointer
    private(set) var databases: Databases
    private let flags: UInt32
    private let mapLock = ReadWriteLock()
    private let readPool = Locked<[OpaquePointer]>([])
    private let mapSize: Locked<Int>
    private let isClosed = Locked(false)
    /// Present in periodic durability: marks the store dirty around unsynced commits.
    private let flushMarker: FlushMarker?

    /// Opens (creating when missing) the environment in `directory`.
    init(directory: URL, durability: Durability, initialMapBytes: Int, flushMarker: FlushMarker?) throws(OpenFailure) {
        self.directory = directory
        self.flushMarker = flushMarker
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            if directory.isExistingNonDirectory {
                throw .damaged("\(directory.lastPathComponent) is a file, not a folder")
            }
            throw .failed(.io(path: directory.path, operation: "create", errno: errno, message: "\(error)"))
        }
        let dataFile = directory.appendingPathComponent("data.mdb")
        if dataFile.isExistingNonRegularFile {
            throw .damaged("data.mdb is not a regular file")
        }

        var env: OpaquePointer?
        var code = mdb_env_create(&env)
        guard code == 0, let env else { throw .failed(LMDBError.error(code, "create an environment")) }
        let mapBytes = Self.roundToPages(initialMapBytes)
        mdb_env_set_maxdbs(env, 8)
        mdb_env_set_maxreaders(env, 510)
        mdb_env_set_mapsize(env, mapBytes)
        let flags = UInt32(MDB_NOTLS) | Self.syncFlags(durability)
        self.flags = flags
        code = mdb_env_open(env, directory.path, flags, 0o644)
        if code != 0 {
            mdb_env_close(env)
            if LMDBError.meansCorruption(code) || code == EINVAL {
                throw .damaged(String(cString: mdb_strerror(code)))
            }
            throw .failed(LMDBError.error(code, "open the blob store"))
        }
        // A file cut short maps pages that are not there: reading one would raise SIGBUS.
        // Compare the size LMDB's meta page promises with the file's real size first.
        var info = MDB_envinfo()
        var stat = MDB_stat()
        mdb_env_info(env, &info)
        mdb_env_stat(env, &stat)
        let needed = (Int(info.me_last_pgno) + 1) * Int(stat.ms_psize)
        let actual = dataFile.fileSize ?? 0
        if actual < needed {
            mdb_env_close(env)
            throw .damaged("data.mdb is \(actual) bytes but its last page ends at \(needed)")
        }
        environment = env
        mapSize = Locked(max(mapBytes, info.me_mapsize))
        do {
            databases = try Self.openDatabases(env)
        } catch let failure {
            mdb_env_close(env)
            throw failure
        }
        var dead: Int32 = 0
        mdb_reader_check(env, &dead)
    }

    private static func openDatabases(_ env: OpaquePointer) throws(OpenFailure) -> Databases {
        var txn: OpaquePointer?
        var code = mdb_txn_begin(env, nil, 0, &txn)
        guard code == 0, let txn else {
            throw LMDBError.meansCorruption(code)
                ? .damaged(String(cString: mdb_strerror(code)))
                : .failed(LMDBError.error(code, "begin the opening transaction"))
        }
        var handles: [MDB_dbi] = []
        for name in ["records", "blobs", "journal", "info"] {
            var dbi: MDB_dbi = 0
            code = mdb_dbi_open(txn, name, UInt32(MDB_CREATE), &dbi)
            if code != 0 {
                mdb_txn_abort(txn)
                throw LMDBError.meansCorruption(code) || code == EINVAL
                    ? .damaged("cannot open database '\(name)': \(String(cString: mdb_strerror(code)))")
                    : .failed(LMDBError.error(code, "open database \(name)"))
            }
            handles.append(dbi)
        }
        code = mdb_txn_commit(txn)
        if code != 0 {
            throw LMDBError.meansCorruption(code)
                ? .damaged(String(cString: mdb_strerror(code)))
                : .failed(LMDBError.error(code, "commit the opening transaction"))
        }
        return Databases(records: handles[0], blobs: handles[1], journal: handles[2], info: handles[3])
    }

    private static func syncFlags(_ durability: Durability) -> UInt32 {
        switch durability {
        case .eachCommit: return UInt32(MDB_NOMETASYNC)
        case .full: return 0
        case .periodic: return UInt32(MDB_NOSYNC)
        }
    }

    private static func roundToPages(_ bytes: Int) -> Int {
        let page = 1 << 20
        return max(page, (bytes + page - 1) / page * page)
    }

    deinit {
        close()
    }

    /// Closes the environment; later calls fail with ``StorageError/closed``.
    func close() {
        let wasOpen = isClosed.withLock { closed in
            defer { closed = true }
            return !closed
        }
        guard wasOpen else { return }
        mapLock.withWriteLock {
            readPool.withLock { pool in
                for txn in pool { mdb_txn_abort(txn) }
                pool.removeAll()
            }
            let environment = environment
            if let flushMarker {
                try? flushMarker.flush { mdb_env_sync(environment, 1) }
            } else {
                mdb_env_sync(environment, 1)
            }
            mdb_env_close(environment)
        }
    }

    // MARK: Transactions

    /// Runs `body` in a read-only snapshot. Safe from any thread, in parallel.
    func read<Result>(_ body: (LMDBTransaction) throws -> Result) throws -> Result {
        while true {
            var resized = false
            let result: Result? = try mapLock.withReadLock {
                try ensureOpen()
                let txn = try takeReadTransaction()
                guard let txn else {
                    resized = true
                    return nil
                }
                defer {
                    mdb_txn_reset(txn)
                    readPool.withLock { $0.append(txn) }
                }
                return try body(LMDBTransaction(handle: txn))
            }
            if let result { return result }
            if resized { try adoptResizedMap() }
        }
    }

    /// A renewed pooled transaction, a new one, or nil when another process grew the map.
    private func takeReadTransaction() throws -> OpaquePointer? {
        if let pooled = readPool.withLock({ $0.popLast() }) {
            let code = mdb_txn_renew(pooled)
            if code == 0 { return pooled }
            mdb_txn_abort(pooled)
            if code == MDB_MAP_RESIZED { return nil }
            throw LMDBError.error(code, "renew a read transaction")
        }
        var txn: OpaquePointer?
        let code = mdb_txn_begin(environment, nil, UInt32(MDB_RDONLY), &txn)
        if code == MDB_MAP_RESIZED { return nil }
        try LMDBError.check(code, "begin a read transaction")
        return txn
    }

    /// Runs `body` in a write transaction and commits it. When the map fills, the transaction is
    /// aborted, the map doubled, and `body` run again; `body` must therefore be repeatable.
    func write<Result>(_ body: (LMDBTransaction) throws -> Result) throws -> Result {
        while true {
            var outcome: (result: Result?, code: Int32) = (nil, 0)
            try mapLock.withReadLock {
                try ensureOpen()
                var txn: OpaquePointer?
                var code = mdb_txn_begin(environment, nil, 0, &txn)
                if code == MDB_MAP_RESIZED {
                    outcome.code = code
                    return
                }
                try LMDBError.check(code, "begin a write transaction")
                guard let txn else { return }
                do {
                    let result = try body(LMDBTransaction(handle: txn))
                    if let flushMarker {
                        code = try flushMarker.commit { mdb_txn_commit(txn) }
                    } else {
                        code = mdb_txn_commit(txn)
                    }
                    if code == 0 {
                        outcome.result = result
                    } else if code == MDB_MAP_FULL {
                        outcome.code = code
                    } else {
                        throw LMDBError.error(code, "commit a write transaction")
                    }
                } catch let StorageError.lmdb(_, code, _) where code == MDB_MAP_FULL {
                    mdb_txn_abort(txn)
                    outcome.code = code
                } catch {
                    mdb_txn_abort(txn)
                    throw error
                }
            }
            if let result = outcome.result { return result }
            if outcome.code == MDB_MAP_RESIZED {
                try adoptResizedMap()
            } else if outcome.code == MDB_MAP_FULL {
                try growMap()
            }
        }
    }

    /// Another process grew the map: take the new size.
    private func adoptResizedMap() throws {
        try mapLock.withWriteLock {
            try ensureOpen()
            dropReadPool()
            try LMDBError.check(mdb_env_set_mapsize(environment, 0), "adopt the resized map")
            var info = MDB_envinfo()
            mdb_env_info(environment, &info)
            mapSize.withLock { $0 = info.me_mapsize }
        }
    }

    /// Doubles the map (LMDB's file grows only as pages are used; the map is address space).
    private func growMap() throws {
        try mapLock.withWriteLock {
            try ensureOpen()
            dropReadPool()
            var info = MDB_envinfo()
            mdb_env_info(environment, &info)
            let newSize = Self.roundToPages(max(info.me_mapsize, mapSize.withLock { $0 }) * 2)
            try LMDBError.check(mdb_env_set_mapsize(environment, newSize), "grow the map")
            mapSize.withLock { $0 = newSize }
        }
    }

    private func dropReadPool() {
        readPool.withLock { pool in
            for txn in pool { mdb_txn_abort(txn) }
            pool.removeAll()
        }
    }

    private func ensureOpen() throws {
        if isClosed.withLock({ $0 }) { throw StorageError.closed }
    }

    // MARK: Maintenance

    /// Forces committed data to disk (and, in periodic durability, marks the store clean).
    func sync() throws {
        try mapLock.withReadLock {
            try ensureOpen()
            let sync = { try LMDBError.check(mdb_env_sync(self.environment, 1), "flush to disk") }
            if let flushMarker { try flushMarker.flush(sync) } else { try sync() }
        }
    }

    /// Clears reader slots left by processes that died inside a read transaction.
    func clearStaleReaders() {
        mapLock.withReadLock {
            guard !isClosed.withLock({ $0 }) else { return }
            var dead: Int32 = 0
            mdb_reader_check(environment, &dead)
        }
    }

    /// Map size, pages in use and page size, for statistics.
    func usage() throws -> (mapBytes: Int, usedBytes: Int, pageBytes: Int) {
        try mapLock.withReadLock {
            try ensureOpen()
            var info = MDB_envinfo()
            var stat = MDB_stat()
            mdb_env_info(environment, &info)
            mdb_env_stat(environment, &stat)
            let page = Int(stat.ms_psize)
            return (info.me_mapsize, (Int(info.me_last_pgno) + 1) * page, page)
        }
    }

    /// Rewrites the data file without its free pages and reopens it. The caller must be the only
    /// process using the store; in this process, transactions wait on `mapLock` meanwhile.
    /// - Returns: the data file's size before and after.
    func compactInPlace() throws -> (before: Int, after: Int) {
        try mapLock.withWriteLock {
            try ensureOpen()
            dropReadPool()
            let fileManager = FileManager.default
            let dataFile = directory.appendingPathComponent("data.mdb")
            let scratch = directory.appendingPathComponent("compacting", isDirectory: true)
            try? fileManager.removeItem(at: scratch)
            try fileManager.createDirectory(at: scratch, withIntermediateDirectories: true)
            defer { try? fileManager.removeItem(at: scratch) }
            let before = dataFile.fileSize ?? 0
            try LMDBError.check(
                mdb_env_copy2(environment, scratch.path, UInt32(MDB_CP_COMPACT)), "write a compacted copy")
            var info = MDB_envinfo()
            mdb_env_info(environment, &info)
            mdb_env_close(environment)
            if rename(scratch.appendingPathComponent("data.mdb").path, dataFile.path) != 0 {
                let code = errno
                isClosed.withLock { $0 = true }
                throw StorageError.io(
                    path: dataFile.path, operation: "replace with the compacted copy", errno: code,
                    message: String(cString: strerror(code)))
            }
            var env: OpaquePointer?
            mdb_env_create(&env)
            guard let env else {
                isClosed.withLock { $0 = true }
                throw StorageError.lmdb(operation: "reopen after compaction", code: ENOMEM, message: "no memory")
            }
            mdb_env_set_maxdbs(env, 8)
            mdb_env_set_maxreaders(env, 510)
            mdb_env_set_mapsize(env, info.me_mapsize)
            let code = mdb_env_open(env, directory.path, flags, 0o644)
            guard code == 0, let reopened = try? Self.openDatabases(env) else {
                mdb_env_close(env)
                isClosed.withLock { $0 = true }
                throw LMDBError.error(code == 0 ? MDB_CORRUPTED : code, "reopen after compaction")
            }
            environment = env
            databases = reopened
            return (before, dataFile.fileSize ?? 0)
        }
    }
}

extension URL {
    /// The file's size in bytes, or nil when it does not exist.
    var fileSize: Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_size)
    }

    var isExistingNonDirectory: Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        return (info.st_mode & S_IFMT) != S_IFDIR
    }

    var isExistingNonRegularFile: Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        return (info.st_mode & S_IFMT) != S_IFREG
    }
}
