import CLMDB
import Foundation
import Logging

/// Opens a store's two halves, detecting damage and other formats, and recovering per policy.
///
/// Runs under `open.lock`, exclusively, so two processes never recover the same store at once.
/// LMDB is the source of truth: a damaged index alone is rebuilt from LMDB; a damaged LMDB, or a
/// store of another format than ``StoreInfo/currentFormat`` (older or newer: the store reads one
/// format only), is moved aside whole into quarantine and an empty store takes its place.
struct StoreOpener {
    let layout: StoreLayout
    let configuration: StoreConfiguration

    struct Opened {
        let blobs: BlobStore
        let index: MetadataIndex
        let appliedSequence: UInt64
        /// Held shared while the store is open; nil when a read-only store could not open it.
        let usersLock: FileLock?
        /// The lock openers take; compaction holds it so that nobody opens the file it replaces.
        let openLock: FileLock?
        /// Why the store was opened read-only, when it was.
        let readOnlyReason: String?
        /// The lack of space that kept opening from bringing the index up to date, if any: the
        /// store serves reads and its writes are paused until there is room.
        let spaceFailure: StorageError?
    }

    private enum Problem: Error {
        case damaged(String)
        case otherFormat(String)
    }

    /// The index counter of stores opening moved aside (see ``StoreStatistics/storesMovedAside``).
    static let movedAsideCounter = "stores-moved-aside"

    var reserve: SpaceReserve { SpaceReserve(url: layout.reserve, sharing: configuration.sharing) }

    func open() throws -> Opened {
        OpenReadahead.start(layout)
        if configuration.access == .readOnly { return try openReadOnly(reason: "opened read-only") }
        let sharing = configuration.sharing
        do {
            try StoreFiles.makeDirectory(layout.directory, sharing: sharing)
        } catch let error as StorageError where error.isPermissionProblem && storeExists {
            return try openReadOnly(reason: "the cache folder cannot be written")
        }
        if !StoreFiles.isWritableDirectory(layout.directory) && storeExists {
            return try openReadOnly(reason: "the cache folder cannot be written")
        }
        layout.tightenModes(sharing: sharing)
        let openLock: FileLock
        let usersLock: FileLock
        do {
            openLock = try FileLock(url: layout.openLock, sharing: sharing)
            usersLock = try FileLock(url: layout.usersLock, sharing: sharing)
        } catch let error as StorageError where error.isPermissionProblem && storeExists {
            return try openReadOnly(reason: "the store's files cannot be written")
        }
        openLock.lockExclusive()
        defer { openLock.unlock() }
        // Taken before LMDB is opened, under the open lock: a compaction (which needs both) can then
        // never replace the data file this process is about to map.
        usersLock.lockShared()

        var movedAside = 0
        for attempt in 1...3 {
            do {
                let (blobs, index, applied, spaceFailure) = try openParts()
                if movedAside > 0 {
                    // Counted in the new store's index; a disk too full for that row loses the
                    // count, never the opening (the log says what happened either way).
                    try? index.writer.transaction {
                        try index.addToCounters([Self.movedAsideCounter: Int64(movedAside)])
                    }
                }
                return Opened(
                    blobs: blobs, index: index, appliedSequence: applied, usersLock: usersLock, openLock: openLock,
                    readOnlyReason: nil, spaceFailure: spaceFailure)
            } catch let problem as Problem {
                let (reason, isOtherFormat): (String, Bool) =
                    switch problem {
                    case let .damaged(reason): (reason, false)
                    case let .otherFormat(reason): (reason, true)
                    }
                guard configuration.recovery == .rebuild, attempt < 3 else {
                    usersLock.unlock()
                    throw isOtherFormat
                        ? StorageError.incompatibleStore(path: layout.directory.path, reason: reason)
                        : StorageError.corruptStore(path: layout.directory.path, reason: reason)
                }
                let moved = try quarantine(
                    [layout.blobs, layout.index, layout.flushState] + layout.indexSidecars, reason: reason)
                movedAside += 1
                configuration.logger.error(
                    isOtherFormat
                        ? "Cache store was written by another version; moved it aside and started empty"
                        : "Cache store was unusable; moved it aside and started empty",
                    metadata: ["reason": "\(reason)", "moved-to": "\(moved.path)"])
            } catch let error as StorageError where error.isPermissionProblem && storeExists {
                usersLock.unlock()
                return try openReadOnly(reason: "the store's files cannot be written")
            } catch {
                usersLock.unlock()
                throw error
            }
        }
        usersLock.unlock()
        throw StorageError.corruptStore(path: layout.directory.path, reason: "recovery did not converge")
    }

    private var storeExists: Bool {
        FileManager.default.fileExists(atPath: layout.dataFile.path)
    }

    /// Opens an existing store without writing anything: LMDB read-only (without its lock file
    /// when that cannot be opened), the index file as it is when it mirrors LMDB's head, or else an
    /// index rebuilt in memory from LMDB's records. Never recovers, never blocks a writer.
    private func openReadOnly(reason: String) throws -> Opened {
        let path = layout.directory.path
        guard storeExists else {
            throw StorageError.readOnly(path: path, reason: "\(reason), and no store exists there yet")
        }
        // A recovery in another process moves files: wait for it, without keeping writers out after.
        let openLock = try FileLock.existing(at: layout.openLock)
        openLock?.lockShared()
        defer { openLock?.unlock() }
        if FlushMarker.hasUnflushedWritesFromEarlierBoot(in: layout) {
            throw StorageError.corruptStore(
                path: path,
                reason: "the machine went down with unflushed writes, and a read-only open cannot recover it; open it writable once")
        }
        let blobs: BlobStore
        do {
            blobs = try BlobStore(
                directory: layout.blobs, durability: configuration.durability, initialMapBytes: 1 << 20,
                flushMarker: nil, readOnly: true)
        } catch let .damaged(damage) {
            throw StorageError.corruptStore(path: path, reason: "blob store: \(damage)")
        } catch let .otherLayout(reason) {
            throw StorageError.incompatibleStore(path: path, reason: reason)
        } catch let .failed(error) {
            throw error
        }
        do {
            let info: StoreInfo?
            do {
                info = try blobs.read { txn in try txn.storeInfo(blobs.databases) }
            } catch let other as StoreInfo.OtherFormat {
                throw StorageError.incompatibleStore(path: path, reason: Self.describe(other))
            }
            var index: MetadataIndex?
            if let info, let onDisk = try? MetadataIndex(.readOnlyFile(path: layout.index.path)),
                onDisk.isCaughtUp(storeID: info.storeID, head: info.head)
            {
                index = onDisk
            }
            let chosen: MetadataIndex
            if let index {
                chosen = index
            } else {
                do {
                    chosen = try MetadataIndex(.memory)
                } catch {
                    throw StorageError.corruptStore(path: path, reason: "cannot build an index in memory: \(error)")
                }
            }
            let mirror = StoreMirror(blobs: blobs, index: chosen, logger: configuration.logger)
            let applied = index == nil ? try mirror.catchUp(forceRebuild: true) : info?.head ?? 0
            let usersLock = try FileLock.existing(at: layout.usersLock)
            usersLock?.lockShared()
            configuration.logger.notice(
                "Opened the cache store read-only", metadata: ["path": "\(path)", "reason": "\(reason)"])
            return Opened(
                blobs: blobs, index: chosen, appliedSequence: applied, usersLock: usersLock, openLock: nil,
                readOnlyReason: reason, spaceFailure: nil)
        } catch {
            blobs.close()
            throw error
        }
    }

    private func openParts() throws -> (BlobStore, MetadataIndex, UInt64, StorageError?) {
        if FlushMarker.hasUnflushedWritesFromEarlierBoot(in: layout) {
            throw Problem.damaged("the machine went down with unflushed writes")
        }
        // The index opens beside LMDB (see ``ConcurrentStep``), and is joined (and closed) before
        // any failure below moves the store's files aside.
        let indexOpening = ConcurrentStep { [self] in try withReserveOnFullDisk { try openIndex() } }
        var indexTaken = false
        let blobs: BlobStore
        do {
            blobs = try openBlobs()
        } catch {
            indexOpening.abandon { $0.close() }
            throw error
        }
        do {
            do {
                _ = try loadInfo(blobs)
            } catch let other as StoreInfo.OtherFormat {
                throw Problem.otherFormat(Self.describe(other))
            }
            let index: MetadataIndex
            do {
                indexTaken = true
                index = try indexOpening.value()
            } catch let error as StorageError where error.isOutOfSpace {
                // Not even the index's shared-memory file fits: index LMDB's records in memory
                // for this process; reads and listings work, writes resume once there is room,
                // and the file catches up from the journal at the next open.
                configuration.logger.warning(
                    "The disk is full: the cache index cannot be opened; indexing in memory, writes are paused",
                    metadata: ["error": "\(error)"])
                let memory: MetadataIndex
                do {
                    memory = try MetadataIndex(.memory)
                } catch {
                    throw StorageError.corruptStore(path: layout.directory.path, reason: "cannot build an index in memory: \(error)")
                }
                let applied = try StoreMirror(blobs: blobs, index: memory, logger: configuration.logger)
                    .catchUp(forceRebuild: true)
                return (blobs, memory, applied, error)
            }
            do {
                let mirror = StoreMirror(blobs: blobs, index: index, logger: configuration.logger)
                do {
                    // Under the default recovery, an index SQLite finds malformed on the way is
                    // rebuilt from LMDB; otherwise the open fails with what SQLite said.
                    let applied = try withReserveOnFullDisk {
                        configuration.recovery == .rebuild ? try mirror.catchUpReplacingDamage() : try mirror.catchUp()
                    }
                    return (blobs, index, applied, nil)
                } catch let error as StorageError where error.isOutOfSpace {
                    // Reads need only LMDB: open with the index behind, and catch up once there is room.
                    configuration.logger.warning(
                        "The disk is full: opened the cache with its index behind; writes are paused",
                        metadata: ["error": "\(error)"])
                    return (blobs, index, try index.mirrorState().appliedSequence, error)
                }
            } catch {
                index.close()
                throw error
            }
        } catch {
            if !indexTaken { indexOpening.abandon { $0.close() } }
            blobs.close()
            if case let StorageError.lmdb(_, code, message) = error, LMDBError.meansCorruption(code) {
                throw Problem.damaged("blob store: \(message)")
            }
            throw error
        }
    }

    /// Opens LMDB's half, with the flush marker that periodic durability keeps beside it.
    private func openBlobs() throws -> BlobStore {
        var marker: FlushMarker?
        if case .periodic = configuration.durability {
            marker = try FlushMarker(layout: layout, sharing: configuration.sharing)
        }
        do {
            return try BlobStore(
                directory: layout.blobs, durability: configuration.durability,
                initialMapBytes: configuration.initialMapBytes ?? Self.defaultMapBytes(byteLimit: configuration.byteLimit),
                flushMarker: marker, sharing: configuration.sharing)
        } catch let .damaged(reason) {
            throw Problem.damaged("blob store: \(reason)")
        } catch let .otherLayout(reason) {
            throw Problem.otherFormat(reason)
        } catch let .failed(error) {
            throw error
        }
    }

    /// Runs `body`; when it fails for lack of space, gives up the space reserve and runs it once more.
    private func withReserveOnFullDisk<Value>(_ body: () throws -> Value) throws -> Value {
        do {
            return try body()
        } catch let error as StorageError where error.isOutOfSpace && reserve.release() {
            configuration.logger.warning("The disk is full: released the space reserve to open the cache")
            return try body()
        } catch let MetadataIndex.OpenFailure.failed(error) where error.isOutOfSpace && reserve.release() {
            configuration.logger.warning("The disk is full: released the space reserve to open the cache")
            return try body()
        }
    }

    /// Twice the byte limit, at least 64 MiB, without overflowing for a huge limit (the map only
    /// reserves address space, and doubles whenever it fills).
    static func defaultMapBytes(byteLimit: Int) -> Int {
        let (doubled, overflow) = max(0, byteLimit).multipliedReportingOverflow(by: 2)
        return overflow ? 1 << 40 : min(max(64 << 20, doubled), 1 << 40)
    }

    /// The store info; written only for a new store, so opening an existing one writes nothing to LMDB.
    private func loadInfo(_ blobs: BlobStore) throws -> StoreInfo {
        if let info = try blobs.read({ txn in try txn.storeInfo(blobs.databases) }) { return info }
        return try blobs.write { txn in
            if let info = try txn.storeInfo(blobs.databases) { return info }
            // A store with records but no info is not one this code wrote.
            if try txn.count(blobs.databases.records) > 0 || txn.count(blobs.databases.pointerTail) > 0 {
                throw StorageError.lmdb(operation: "read store info", code: MDB_CORRUPTED, message: "records without store info")
            }
            let info = StoreInfo.fresh()
            try txn.writeStoreInfo(info, blobs.databases)
            return info
        }
    }

    /// Opens the index; a damaged one is moved aside and rebuilt from LMDB by the first catch-up.
    private func openIndex() throws -> MetadataIndex {
        do {
            return try MetadataIndex(
                path: layout.index.path, sharing: configuration.sharing, logBoundBytes: configuration.indexLogBoundBytes)
        } catch let .otherSchema(version) {
            throw Problem.otherFormat("index schema \(version), this version reads \(IndexSchema.currentVersion)")
        } catch let .failed(error) {
            throw error
        } catch let .damaged(reason) {
            guard configuration.recovery == .rebuild else {
                throw StorageError.corruptStore(path: layout.directory.path, reason: "index: \(reason)")
            }
            let moved = try quarantine([layout.index] + layout.indexSidecars, reason: "index \(reason)")
            configuration.logger.error(
                "Cache index was unusable; moved it aside and rebuilding it from the blob store",
                metadata: ["reason": "\(reason)", "moved-to": "\(moved.path)"])
            do {
                return try MetadataIndex(
                    path: layout.index.path, sharing: configuration.sharing, logBoundBytes: configuration.indexLogBoundBytes)
            } catch {
                throw StorageError.corruptStore(path: layout.directory.path, reason: "index cannot be recreated: \(error)")
            }
        }
    }

    private static func describe(_ other: StoreInfo.OtherFormat) -> String {
        "blob store format \(other.format), this version reads \(StoreInfo.currentFormat)"
    }

    private func quarantine(_ parts: [URL], reason: String) throws -> URL {
        do {
            return try layout.quarantine(parts, reason: reason, sharing: configuration.sharing)
        } catch {
            throw StorageError.io(
                path: layout.quarantine.path, operation: "move the damaged store aside", errno: errno,
                message: "\(error)")
        }
    }
}
