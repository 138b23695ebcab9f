import CLMDB
import CLMDBGuard
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
/// `environment`'s lock is taken shared by every transaction and exclusively by a map resize,
/// because LMDB must not resize while a transaction of this process is active.
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

    /// LMDB's environment handle and the map's settings: what a map resize, a reopening or a
    /// compaction changes, under the lock every transaction takes shared.
    struct Environment {
        /// Replaced by `compactInPlace` and by `reopenAfterPanic`.
        var handle: OpaquePointer
        /// The map's size as this process last set or adopted it, whatever the growth ceiling.
        var mapBytes: Int
        /// The most the data file may grow to while the volume's free space binds the store (see
        /// ``limitGrowth(to:)``); nil when only the map bounds it.
        var growthCeiling: Int?
    }

    let directory: URL
    /// Held shared by every transaction, alone by a map resize, a reopening or a compaction.
    let environment: Locked<Environment>
    /// Replaced with the environment, under its lock held exclusively.
    private(set) var databases: Databases
    let flags: UInt32
    let fileMode: mode_t
    let readPool = Locked<[OpaquePointer]>([])
    let isClosed = Locked(false)
    /// When an idle pass last cleared stale reader slots (see ``clearStaleReadersIfDue()``).
    let lastReaderCheck = Locked(Date())
    /// When ``releaseMappedPagesIfDue()`` last unmapped the map.
    let lastMapRelease = Locked(ContinuousClock.now)
    /// Present in periodic durability: marks the store dirty around unsynced commits.
    let flushMarker: FlushMarker?
    /// Set when LMDB faulted inside a write (a damaged page on its path): that transaction can
    /// never be ended (see `CLMDBGuard`), so this environment takes no write again; reads go on.
    let writesStopped = Locked(false)

    /// Opened with `MDB_RDONLY`: nothing is ever written.
    var isReadOnly: Bool { flags & UInt32(MDB_RDONLY) != 0 }
    /// Opened without LMDB's lock file (it could not be opened, as in a folder of another user):
    /// a writer elsewhere may reuse pages under a read, so every read checks the blob's checksum.
    var readsWithoutLocks: Bool { flags & UInt32(MDB_NOLOCK) != 0 }

    /// Opens (creating when missing, unless `readOnly`) the environment in `directory`.
    init(
        directory: URL, durability: Durability, initialMapBytes: Int, flushMarker: FlushMarker?,
        sharing: FileSharing = .owner, readOnly: Bool = false
    ) throws(OpenFailure) {
        self.directory = directory
        self.flushMarker = readOnly ? nil : flushMarker
        lmdb_guard_install()
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
        let creating = !readOnly && access(dataFile.path, F_OK) != 0
        // LMDB opens its files by name: it would follow a link planted there, and wait forever
        // on a FIFO.
        for name in ["data.mdb", "lock.mdb"] {
            if let kind = CheckedPath.nonRegularKind(at: directory.appendingPathComponent(name).path) {
                throw .damaged("\(name) is a \(kind), not a regular file")
            }
        }
        // Random advice from the map's first page on (see `advise`).
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
        self.flags = flags
        if !readOnly {
            StoreFiles.tighten(dataFile.path, to: fileMode)
            StoreFiles.tighten(directory.appendingPathComponent("lock.mdb").path, to: fileMode)
        }
        if creating {
            // LMDB made `data.mdb` and syncs only the file: its name in `blobs/` reaches the disk
            // now, before the first commit, or a power loss could keep every synced commit and
            // lose the file they went to.
            do {
                try StoreFiles.sync(directory, operation: "sync the folder holding the new data file")
            } catch {
                mdb_env_close(env)
                throw .failed(error as? StorageError ?? .io(path: directory.path, operation: "sync", errno: errno, message: "\(error)"))
            }
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
        environment = Locked(Environment(handle: env, mapBytes: max(mapBytes, info.me_mapsize)), sharing: .sharedReads)
        do {
            databases = try Self.openDatabases(env, readOnly: readOnly)
        } catch let failure {
            mdb_env_close(env)
            throw failure
        }
        if flags & UInt32(MDB_NOLOCK) == 0 {
            var dead: Int32 = 0
            mdb_reader_check(env, &dead)
        }
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
        environment.withLock { env in
            readPool.withLock { pool in
                for txn in pool { mdb_txn_abort(txn) }
                pool.removeAll()
            }
            let environment = env.handle
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

    func ensureOpen() throws {
        if isClosed.withLock({ $0 }) { throw StorageError.closed }
    }

    func dropReadPool() {
        readPool.withLock { pool in
            for txn in pool { mdb_txn_abort(txn) }
            pool.removeAll()
        }
    }

    /// Closes an environment LMDB marked as failed and opens the same files again.
    func reopenAfterPanic() throws {
        try environment.withLock { current in
            try ensureOpen()
            dropReadPool()
            var info = MDB_envinfo()
            mdb_env_info(current.handle, &info)
            mdb_env_close(current.handle)
            do {
                let env = try Self.openEnvironment(directory, flags: flags, mapBytes: info.me_mapsize, mode: fileMode)
                current.handle = env
                databases = try Self.openDatabases(env, readOnly: isReadOnly)
            } catch {
                isClosed.withLock { $0 = true }
                throw StorageError.corruptStore(
                    path: directory.path, reason: "the blob store could not be reopened after a failed write: \(error)")
            }
        }
    }

    /// Rewrites the data file without its free pages and reopens it. The caller must be the only
    /// process using the store; in this process, transactions wait on `environment`'s lock meanwhile.
    /// - Returns: the data file's size before and after.
    func compactInPlace() throws -> (before: Int, after: Int) {
        try environment.withLock { current in
            try ensureOpen()
            try ensureWritable()
            dropReadPool()
            let fileManager = FileManager.default
            let dataFile = directory.appendingPathComponent("data.mdb")
            let scratch = directory.appendingPathComponent("compacting", isDirectory: true)
            try? fileManager.removeItem(at: scratch)
            try fileManager.createDirectory(at: scratch, withIntermediateDirectories: true)
            defer { try? fileManager.removeItem(at: scratch) }
            let before = dataFile.fileSize ?? 0
            try LMDBError.check(
                mdb_env_copy2(current.handle, scratch.path, UInt32(MDB_CP_COMPACT)), "write a compacted copy")
            // LMDB does not sync the copy when the environment does not sync: do it, so the rename
            // never puts an unwritten file in the store's place.
            try StoreFiles.sync(scratch.appendingPathComponent("data.mdb"), operation: "sync the compacted copy")
            var info = MDB_envinfo()
            mdb_env_info(current.handle, &info)
            mdb_env_close(current.handle)
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
            current.handle = env
            databases = reopened
            return (before, dataFile.fileSize ?? 0)
        }
    }
}
