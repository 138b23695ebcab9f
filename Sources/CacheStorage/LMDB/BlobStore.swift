import CLMDB
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The LMDB environment: entry records (in the record log, reached by digest through `records` and
/// the pointer tail), blobs (in the blob log), the change journal and store info.
///
/// Concurrency: LMDB is opened with `MDB_NOTLS`, so read transactions may run on any thread, and
/// reset read transactions are pooled (`readPool`, guarded by its lock). Write transactions come
/// only from the store's single writer thread (and LMDB serialises writers across processes).
/// `mapLock` is taken shared by every transaction and exclusively by a map resize, because LMDB
/// must not resize while a transaction of this process is active.
final class BlobStore: @unchecked Sendable {
    /// The named databases inside the environment: every store has all of them, created with it.
    struct Databases {
        /// Each entry's record number under its digest (see ``RecordLocation``), once merged from
        /// the pointer tail.
        let records: MDB_dbi
        let journal: MDB_dbi
        let info: MDB_dbi
        /// Which entries were derived from which: keys are a source's digest then a derived
        /// entry's, values empty.
        let dependents: MDB_dbi
        /// Blobs under 8-byte big-endian numbers, in the order they were written (see
        /// ``BlobLocation``).
        let blobLog: MDB_dbi
        /// Records under their blobs' numbers (see ``RecordLocation``).
        let recordLog: MDB_dbi
        /// Numbers of logged records under their entries' digests, not yet merged into `records`
        /// (see ``PointerTailIndex``).
        let pointerTail: MDB_dbi
        /// This process's index of `pointerTail`, new with each opening of the environment.
        let tailIndex = PointerTailIndex()
    }

    /// Why the environment could not be opened: damaged files, files of another layout (a store
    /// written by an older or a newer version), or an ordinary failure.
    enum OpenFailure: Error {
        case damaged(String)
        case otherLayout(String)
        case failed(StorageError)
    }

    let directory: URL
    /// Replaced by `compactInPlace` and by `reopenAfterPanic`, under `mapLock` held exclusively.
    private var environment: OpaquePointer
    /// Set by `finishOpening`, under `mapLock` held exclusively: the map's advice is normal.
    private var hasOpened = false
    private(set) var databases: Databases
    private let flags: UInt32
    private let fileMode: mode_t
    private let mapLock = ReadWriteLock()
    private let readPool = Locked<[OpaquePointer]>([])
    private let mapSize: Locked<Int>
    /// The most the data file may grow to while the volume's free space binds the store (see
    /// ``limitGrowth(to:)``); nil when only the map bounds it.
    private let growthCeiling = Locked<Int?>(nil)
    private let isClosed = Locked(false)
    /// When an idle pass last cleared stale reader slots (see ``clearStaleReadersIfDue()``).
    private let lastReaderCheck = Locked(Date())
    /// Present in periodic durability: marks the store dirty around unsynced commits.
    private let flushMarker: FlushMarker?
    /// Opened with `MDB_RDONLY`: nothing is ever written.
    let isReadOnly: Bool
    /// Opened without LMDB's lock file (it could not be opened, as in a folder of another user):
    /// a writer elsewhere may reuse pages under a read, so every read checks the blob's checksum.
    let readsWithoutLocks: Bool

    /// Opens (creating when missing, unless `readOnly`) the environment in `directory`.
    init(
        directory: URL, durability: Durability, initialMapBytes: Int, flushMarker: FlushMarker?,
        sharing: FileSharing = .owner, readOnly: Bool = false
    ) throws(OpenFailure) {
        self.directory = directory
        self.flushMarker = readOnly ? nil : flushMarker
        isReadOnly = readOnly
        fileMode = sharing.fileMode
        if !readOnly {
            do {
                try StoreFiles.makeDirectory(directory, sharing: sharing)
            } catch let StorageError.corruptStore(_, reason) {
                throw .damaged(reason)
            } catch {
                throw .failed(error as? StorageError ?? .io(path: directory.path, operation: "create", errno: errno, message: "\(error)"))
            }
        }
        let dataFile = directory.appendingPathComponent("data.mdb")
        // LMDB opens its files by name: it would follow a link planted there, and wait forever
        // on a FIFO.
        for name in ["data.mdb", "lock.mdb"] {
            if let kind = CheckedPath.nonRegularKind(at: directory.appendingPathComponent(name).path) {
                throw .damaged("\(name) is a \(kind), not a regular file")
            }
        }
        // Random advice from the map's first page on (see `advise`), until `finishOpening`.
        var flags = UInt32(MDB_NOTLS) | UInt32(MDB_NORDAHEAD) | Self.syncFlags(durability)
            | (readOnly ? UInt32(MDB_RDONLY) : 0)
        let mapBytes = Self.roundToPages(initialMapBytes)
        var opened: OpaquePointer
        do {
            opened = try Self.openEnvironment(directory, flags: flags, mapBytes: mapBytes, mode: fileMode)
        } catch let .failed(error) where readOnly && error.isPermissionProblem {
            // LMDB's lock file cannot be opened (another user's folder): read without it.
            flags |= UInt32(MDB_NOLOCK)
            opened = try Self.openEnvironment(directory, flags: flags, mapBytes: mapBytes, mode: fileMode)
        }
        let env = opened
        readsWithoutLocks = flags & UInt32(MDB_NOLOCK) != 0
        self.flags = flags
        if !readOnly {
            StoreFiles.tighten(dataFile.path, to: fileMode)
            StoreFiles.tighten(directory.appendingPathComponent("lock.mdb").path, to: fileMode)
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
            databases = try Self.openDatabases(env, readOnly: readOnly)
        } catch let failure {
            mdb_env_close(env)
            throw failure
        }
        if !readsWithoutLocks {
            var dead: Int32 = 0
            mdb_reader_check(env, &dead)
        }
    }

    /// Advises the kernel how the map's pages will be read.
    ///
    /// While a store opens, `MADV_RANDOM` (LMDB gives it whenever it maps the file, opened with
    /// `MDB_NORDAHEAD`, before it reads a page through the map): each page opening reads (LMDB's
    /// main and info pages, the journal) depends on the one before, and a fault on a cold page
    /// otherwise reads the disk's whole read-ahead window around it (`read_ahead_kb`), megabytes
    /// where one page is needed. Afterwards `MADV_NORMAL` (``finishOpening()``): random advice also
    /// turns off the kernel's fault-around, which maps a fault's cached neighbours with it, and kept
    /// for good (`MDB_NORDAHEAD`) it made warm reads of small entries markedly slower. A read-ahead
    /// hint per read of a large blob (`madvise(WILLNEED)`) cost every warm read more than it saved,
    /// and was left out.
    private static func advise(_ env: OpaquePointer, _ advice: Int32) {
        var info = MDB_envinfo()
        mdb_env_info(env, &info)
        guard let address = info.me_mapaddr else { return }
        _ = madvise(address, info.me_mapsize, advice)
    }

    /// The store has opened: the map's pages are read as usual from now on (see `advise`).
    func finishOpening() {
        mapLock.withWriteLock {
            guard !isClosed.withLock({ $0 }) else { return }
            hasOpened = true
            Self.advise(environment, MADV_NORMAL)
        }
    }

    /// After LMDB mapped the file again (a new size, a new environment), which it advises random:
    /// normal advice back once the store has opened. The caller holds `mapLock` exclusively.
    private func readviseAfterMapping() {
        if hasOpened { Self.advise(environment, MADV_NORMAL) }
    }

    /// Creates and opens an environment handle with the store's settings.
    private static func openEnvironment(_ directory: URL, flags: UInt32, mapBytes: Int, mode: mode_t) throws(OpenFailure)
        -> OpaquePointer
    {
        var env: OpaquePointer?
        var code = mdb_env_create(&env)
        guard code == 0, let env else { throw .failed(LMDBError.error(code, "create an environment")) }
        mdb_env_set_maxdbs(env, 8)
        mdb_env_set_maxreaders(env, 510)
        mdb_env_set_mapsize(env, mapBytes)
        code = mdb_env_open(env, directory.path, flags, mode)
        if code != 0 {
            mdb_env_close(env)
            if LMDBError.meansCorruption(code) || code == EINVAL {
                throw .damaged(String(cString: mdb_strerror(code)))
            }
            throw .failed(LMDBError.error(code, "open the blob store", path: directory.path))
        }
        return env
    }

    private static func openDatabases(_ env: OpaquePointer, readOnly: Bool) throws(OpenFailure) -> Databases {
        var txn: OpaquePointer?
        let txnFlags = readOnly ? UInt32(MDB_RDONLY) : 0
        var code = mdb_txn_begin(env, nil, txnFlags, &txn)
        // Another process grew the map past this one's since `mdb_env_open` read its size (seen
        // with writers growing a 1 MiB map beside an opening evictor): adopt the new size, as
        // any later transaction does (none of this process's is active yet), and begin again.
        // Growth is bounded by the disk, so is this loop; the bound is only a guard.
        for _ in 0..<16 where code == MDB_MAP_RESIZED {
            mdb_env_set_mapsize(env, 0)
            code = mdb_txn_begin(env, nil, txnFlags, &txn)
        }
        guard code == 0, let txn else {
            throw LMDBError.meansCorruption(code)
                ? .damaged(String(cString: mdb_strerror(code)))
                : .failed(LMDBError.error(code, "begin the opening transaction"))
        }
        var handles: [String: MDB_dbi] = [:]
        func openDatabase(_ name: String, flags: UInt32) throws(OpenFailure) {
            var dbi: MDB_dbi = 0
            code = mdb_dbi_open(txn, name, flags, &dbi)
            if code == 0 { handles[name] = dbi }
            if code != 0 && code != MDB_NOTFOUND {
                mdb_txn_abort(txn)
                throw LMDBError.meansCorruption(code) || code == EINVAL
                    ? .damaged("cannot open database '\(name)': \(String(cString: mdb_strerror(code)))")
                    : .failed(LMDBError.error(code, "open database \(name)"))
            }
        }
        for name in databaseNames { try openDatabase(name, flags: 0) }
        // A new environment has none of them: a writer creates them all in this transaction, so
        // that a store has every one from its first commit on.
        if handles.isEmpty && !readOnly {
            for name in databaseNames { try openDatabase(name, flags: UInt32(MDB_CREATE)) }
        }
        if let missing = databaseNames.first(where: { handles[$0] == nil }) {
            mdb_txn_abort(txn)
            throw handles.isEmpty
                ? .damaged("the blob store holds no databases")
                : .otherLayout("the blob store has no database '\(missing)'")
        }
        // Nothing was written when every database existed: this commit needs no free space.
        code = mdb_txn_commit(txn)
        if code != 0 {
            throw LMDBError.meansCorruption(code)
                ? .damaged(String(cString: mdb_strerror(code)))
                : .failed(LMDBError.error(code, "commit the opening transaction"))
        }
        return Databases(
            records: handles["records"]!, journal: handles["journal"]!, info: handles["info"]!,
            dependents: handles["dependents"]!, blobLog: handles["blob_log"]!, recordLog: handles["record_log"]!,
            pointerTail: handles["pointer_tail"]!)
    }

    /// The named databases every store holds (see ``Databases``).
    private static let databaseNames = [
        "records", "journal", "info", "dependents", "blob_log", "record_log", "pointer_tail",
    ]

    private static func syncFlags(_ durability: Durability) -> UInt32 {
        switch durability {
        // Not MDB_NOMETASYNC for `.eachCommit`: it leaves the page recording the last commit
        // unsynced, so a power loss could undo a commit whose puts had returned. Syncing that
        // page later (with the next commit) made puts wait a whole commit longer and measured
        // slower than syncing it at once (`cachectl bench --durability`, 2-in-flight puts).
        case .eachCommit, .full: return 0
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
            if isReadOnly {
                // Nothing to sync.
            } else if let flushMarker {
                try? flushMarker.flush { try LMDBError.check(mdb_env_sync(environment, 1), "flush to disk") }
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
    /// aborted, the map doubled, and `body` run again; `body` must therefore be repeatable. A
    /// write that `addsData` stops at the growth ceiling (``GrowthCeilingReached``); any other
    /// (one that removes) may pass it.
    ///
    /// `mdb_txn_commit` ends its transaction whether it succeeds or fails, so a failed commit is
    /// never aborted again: a second end frees LMDB's reused top-level transaction twice. When a
    /// failure leaves the environment unusable (`MDB_PANIC`, after a meta page could not be
    /// written), it is closed and reopened before the error is passed on.
    func write<Result>(addsData: Bool = false, _ body: (LMDBTransaction) throws -> Result) throws -> Result {
        if isReadOnly { throw StorageError.readOnly(path: directory.path, reason: "the store was opened read-only") }
        while true {
            var outcome: (result: Result?, code: Int32) = (nil, 0)
            do {
                try mapLock.withReadLock {
                    try ensureOpen()
                    var txn: OpaquePointer?
                    var code = mdb_txn_begin(environment, nil, 0, &txn)
                    if code == MDB_MAP_RESIZED || code == MDB_PANIC {
                        outcome.code = code
                        return
                    }
                    try LMDBError.check(code, "begin a write transaction", path: directory.path)
                    guard let txn else { return }
                    let result: Result
                    do {
                        let transaction = LMDBTransaction(handle: txn, isWrite: true)
                        // Before anything is written: the committed state, one transaction back.
                        try databases.tailIndex.catchUp(
                            transaction, tail: databases.pointerTail, snapshot: mdb_txn_id(txn) - 1)
                        result = try body(transaction)
                    } catch let StorageError.lmdb(_, code, _) where code == MDB_MAP_FULL {
                        mdb_txn_abort(txn)
                        outcome.code = code
                        return
                    } catch {
                        mdb_txn_abort(txn)
                        throw error
                    }
                    // From here on the transaction is LMDB's to end: the commit ends it either way.
                    if let flushMarker {
                        do {
                            code = try flushMarker.commit { mdb_txn_commit(txn) }
                        } catch {
                            // The marker could not be written, so the commit never ran.
                            mdb_txn_abort(txn)
                            throw error
                        }
                    } else {
                        code = mdb_txn_commit(txn)
                    }
                    if code == 0 {
                        outcome.result = result
                    } else if code == MDB_MAP_FULL {
                        outcome.code = code
                    } else {
                        throw LMDBError.commitError(code, directory: directory)
                    }
                }
            } catch {
                if environmentPanicked() { try reopenAfterPanic() }
                throw error
            }
            if let result = outcome.result { return result }
            switch outcome.code {
            case MDB_MAP_RESIZED: try adoptResizedMap()
            case MDB_MAP_FULL: try growMap(respectingCeiling: addsData)
            case MDB_PANIC:
                try reopenAfterPanic()
                throw LMDBError.error(MDB_PANIC, "begin a write transaction", path: directory.path)
            default: break
            }
        }
    }

    /// Whether LMDB has marked the environment as fatally failed (every transaction then fails
    /// with `MDB_PANIC` until it is reopened).
    private func environmentPanicked() -> Bool {
        mapLock.withReadLock {
            guard !isClosed.withLock({ $0 }) else { return false }
            var txn: OpaquePointer?
            let code = mdb_txn_begin(environment, nil, UInt32(MDB_RDONLY), &txn)
            if code == 0 { mdb_txn_abort(txn) }
            return code == MDB_PANIC
        }
    }

    /// Closes an environment LMDB marked as failed and opens the same files again.
    private func reopenAfterPanic() throws {
        try mapLock.withWriteLock {
            try ensureOpen()
            dropReadPool()
            var info = MDB_envinfo()
            mdb_env_info(environment, &info)
            mdb_env_close(environment)
            do {
                let env = try Self.openEnvironment(directory, flags: flags, mapBytes: info.me_mapsize, mode: fileMode)
                environment = env
                databases = try Self.openDatabases(env, readOnly: isReadOnly)
                readviseAfterMapping()
            } catch {
                isClosed.withLock { $0 = true }
                throw StorageError.corruptStore(
                    path: directory.path, reason: "the blob store could not be reopened after a failed write: \(error)")
            }
        }
    }

    /// Bytes the data file already holds that new pages can reuse without the file growing:
    /// LMDB's free pages plus any pages written past the last committed one by a failed commit.
    func reusableBytes() throws -> Int {
        try mapLock.withReadLock {
            try ensureOpen()
            let pages = pageUsage()
            let tail = max(0, (directory.appendingPathComponent("data.mdb").fileSize ?? 0) - pages.usedBytes)
            let page = pages.pageBytes
            var txn: OpaquePointer?
            guard mdb_txn_begin(environment, nil, UInt32(MDB_RDONLY), &txn) == 0, let txn else { return tail }
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

    /// Another process grew the map: take the new size.
    private func adoptResizedMap() throws {
        try mapLock.withWriteLock {
            try ensureOpen()
            dropReadPool()
            try LMDBError.check(mdb_env_set_mapsize(environment, 0), "adopt the resized map")
            readviseAfterMapping()
            var info = MDB_envinfo()
            mdb_env_info(environment, &info)
            mapSize.withLock { $0 = info.me_mapsize }
        }
    }

    /// Doubles the map (LMDB's file grows only as pages are used; the map is address space), up
    /// to the growth ceiling when `respectingCeiling`: at the ceiling, throws
    /// ``GrowthCeilingReached``. A write that passes the ceiling (one that frees space) lifts it
    /// until the store sets it again.
    private func growMap(respectingCeiling: Bool) throws {
        try mapLock.withWriteLock {
            try ensureOpen()
            var info = MDB_envinfo()
            mdb_env_info(environment, &info)
            var newSize = Self.roundToPages(max(info.me_mapsize, mapSize.withLock { $0 }) * 2)
            if let ceiling = growthCeiling.withLock({ $0 }) {
                if respectingCeiling {
                    guard info.me_mapsize < ceiling else { throw GrowthCeilingReached(ceilingBytes: ceiling) }
                    newSize = min(newSize, ceiling)
                } else {
                    growthCeiling.withLock { $0 = nil }
                }
            }
            dropReadPool()
            try LMDBError.check(mdb_env_set_mapsize(environment, newSize), "grow the map")
            readviseAfterMapping()
            mapSize.withLock { $0 = max($0, newSize) }
        }
    }

    /// Holds the data file at `bytes` at most (rounded down to 256 KiB, so that small changes in
    /// the volume's free space do not remap LMDB's file at every batch), or lifts the hold (nil):
    /// the map is cut to that size, so a write that needs pages past it fails with
    /// ``GrowthCeilingReached`` instead of growing the file into space the volume must keep free.
    /// LMDB never maps less than the file holds, so the file is only ever stopped, not cut.
    func limitGrowth(to bytes: Int?) throws {
        let ceiling = bytes.map { max(1 << 20, ($0 >> 18) << 18) }
        guard growthCeiling.withLock({ $0 }) != ceiling else { return }
        try mapLock.withWriteLock {
            try ensureOpen()
            let unbounded = mapSize.withLock { $0 }
            dropReadPool()
            try LMDBError.check(mdb_env_set_mapsize(environment, min(ceiling ?? unbounded, unbounded)), "resize the map")
            readviseAfterMapping()
            growthCeiling.withLock { $0 = ceiling }
        }
    }

    /// A write needed the data file to grow past the ceiling the store set (``limitGrowth(to:)``).
    struct GrowthCeilingReached: Error {
        let ceilingBytes: Int
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
        if isReadOnly { return }
        try mapLock.withReadLock {
            try ensureOpen()
            let sync = { try LMDBError.check(mdb_env_sync(self.environment, 1), "flush to disk", path: self.directory.path) }
            if let flushMarker { try flushMarker.flush(sync) } else { try sync() }
        }
    }

    /// Writes LMDB's dirty pages to disk without marking the store flushed: for a thread beside
    /// the writer, so that the next marked ``sync()`` finds little left to write. A failure is
    /// left to that sync to report.
    func writeBack() {
        if isReadOnly { return }
        mapLock.withReadLock {
            guard (try? ensureOpen()) != nil else { return }
            _ = mdb_env_sync(environment, 1)
        }
    }

    /// Clears reader slots left by processes that died inside a read transaction, at most once
    /// every 30 seconds (an idle pass asks).
    func clearStaleReadersIfDue() {
        let due = lastReaderCheck.withLock { last in
            guard Date().timeIntervalSince(last) > 30 else { return false }
            last = Date()
            return true
        }
        guard due else { return }
        mapLock.withReadLock {
            guard !isClosed.withLock({ $0 }), !readsWithoutLocks else { return }
            var dead: Int32 = 0
            mdb_reader_check(environment, &dead)
        }
    }

    /// Map size, pages in use and page size, for statistics.
    func usage() throws -> (mapBytes: Int, usedBytes: Int, pageBytes: Int) {
        try mapLock.withReadLock {
            try ensureOpen()
            return pageUsage()
        }
    }

    /// Map size, bytes up to the last page in use, page size; the caller holds `mapLock`.
    private func pageUsage() -> (mapBytes: Int, usedBytes: Int, pageBytes: Int) {
        var info = MDB_envinfo()
        var stat = MDB_stat()
        mdb_env_info(environment, &info)
        mdb_env_stat(environment, &stat)
        let page = Int(stat.ms_psize)
        return (info.me_mapsize, (Int(info.me_last_pgno) + 1) * page, page)
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
            // LMDB does not sync the copy when the environment does not sync: do it, so the rename
            // never puts an unwritten file in the store's place.
            try StoreFiles.sync(scratch.appendingPathComponent("data.mdb"), operation: "sync the compacted copy")
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
            try? StoreFiles.sync(directory, operation: "sync the folder of")
            StoreFiles.tighten(dataFile.path, to: fileMode)
            guard let env = try? Self.openEnvironment(directory, flags: flags, mapBytes: info.me_mapsize, mode: fileMode)
            else {
                isClosed.withLock { $0 = true }
                throw LMDBError.error(MDB_CORRUPTED, "reopen after compaction")
            }
            guard let reopened = try? Self.openDatabases(env, readOnly: false) else {
                mdb_env_close(env)
                isClosed.withLock { $0 = true }
                throw LMDBError.error(MDB_CORRUPTED, "reopen after compaction")
            }
            environment = env
            databases = reopened
            readviseAfterMapping()
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

    /// Whether a symbolic link stands here.
    var isSymbolicLink: Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }
}
