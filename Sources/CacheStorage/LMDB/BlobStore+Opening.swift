import CLMDB
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Opening LMDB's environment and its named databases.
extension BlobStore {
    /// Advises the kernel about the map's pages (`madvise` over the whole map; LMDB does not say
    /// where its map is, so it is found by its file in `/proc/self/maps`).
    ///
    /// The map's reads are advised `MADV_RANDOM` for good: LMDB gives that advice whenever it maps
    /// the file, opened with `MDB_NORDAHEAD`. A fault on a cold page otherwise reads the disk's whole
    /// read-ahead window around it (`read_ahead_kb`), megabytes where one page is needed, and each
    /// page an opening reads (LMDB's main and info pages, the journal) depends on the one before.
    /// Random advice also turns off the kernel's fault-around, so a read maps only the pages it
    /// touches. A read-ahead hint per read of a large blob (`madvise(WILLNEED)`) cost every warm
    /// read more than it saved, and was left out. ``releaseMappedPagesIfDue()`` advises
    /// `MADV_DONTNEED`.
    static func advise(_ env: OpaquePointer, _ advice: Int32) {
        var descriptor: Int32 = -1
        guard mdb_env_get_fd(env, &descriptor) == 0 else { return }
        for map in Platform.mappedRanges(ofFileOpenAt: descriptor) { _ = madvise(map.baseAddress, map.count, advice) }
    }

    /// Slots in LMDB's reader table: one per read transaction open at once, across every process.
    static let readerSlots = 510

    /// Creates and opens an environment handle with the store's settings.
    static func openEnvironment(_ directory: URL, flags: UInt32, mapBytes: Int, mode: mode_t) throws(OpenFailure)
        -> OpaquePointer
    {
        var env: OpaquePointer?
        var code = mdb_env_create(&env)
        guard code == 0, let env else { throw .failed(LMDBError.error(code, "create an environment")) }
        mdb_env_set_maxdbs(env, 8)
        mdb_env_set_maxreaders(env, UInt32(readerSlots))
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

    static func openDatabases(_ env: OpaquePointer, readOnly: Bool) throws(OpenFailure) -> Databases {
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
    static let databaseNames = [
        "records", "journal", "info", "dependents", "blob_log", "record_log", "pointer_tail",
    ]

    static func syncFlags(_ durability: Durability) -> UInt32 {
        switch durability {
        // Not MDB_NOMETASYNC for `.eachCommit`: it leaves the page recording the last commit
        // unsynced, so a power loss could undo a commit whose puts had returned. Syncing that
        // page later (with the next commit) makes puts wait a whole commit longer, which costs
        // more than syncing it at once.
        case .eachCommit, .full: return 0
        case .periodic: return UInt32(MDB_NOSYNC)
        }
    }

    static func roundToPages(_ bytes: Int) -> Int {
        let page = 1 << 20
        return max(page, (bytes + page - 1) / page * page)
    }
}
