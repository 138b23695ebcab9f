import CLMDB
import Foundation
import Logging

/// Opens a store's two halves, detecting damage and newer formats, and recovering per policy.
///
/// Runs under `open.lock`, exclusively, so two processes never recover the same store at once.
/// LMDB is the source of truth: a damaged or newer index alone is rebuilt from LMDB; a damaged
/// or newer LMDB takes the index with it into quarantine.
struct StoreOpener {
    let layout: StoreLayout
    let configuration: StoreConfiguration

    struct Opened {
        let blobs: BlobStore
        let index: MetadataIndex
        let appliedSequence: UInt64
        let usersLock: FileLock
    }

    private enum Problem: Error {
        case damaged(String)
        case newer(String)
    }

    func open() throws -> Opened {
        do {
            try FileManager.default.createDirectory(at: layout.directory, withIntermediateDirectories: true)
        } catch {
            throw StorageError.io(
                path: layout.directory.path, operation: "create the cache folder", errno: errno, message: "\(error)")
        }
        let openLock = try FileLock(url: layout.openLock)
        openLock.lockExclusive()
        defer { openLock.unlock() }
        let usersLock = try FileLock(url: layout.usersLock)

        for attempt in 1...3 {
            do {
                let (blobs, index, applied) = try openParts()
                usersLock.lockShared()
                return Opened(blobs: blobs, index: index, appliedSequence: applied, usersLock: usersLock)
            } catch let problem as Problem {
                let (reason, isNewer): (String, Bool) =
                    switch problem {
                    case let .damaged(reason): (reason, false)
                    case let .newer(reason): (reason, true)
                    }
                guard configuration.recovery == .rebuild, attempt < 3 else {
                    throw isNewer
                        ? StorageError.incompatibleStore(path: layout.directory.path, reason: reason)
                        : StorageError.corruptStore(path: layout.directory.path, reason: reason)
                }
                let moved = try quarantine(
                    [layout.blobs, layout.index, layout.flushState] + layout.indexSidecars, reason: reason)
                configuration.logger.error(
                    "Cache store was unusable; moved it aside and started empty",
                    metadata: ["reason": "\(reason)", "moved-to": "\(moved.path)"])
            }
        }
        throw StorageError.corruptStore(path: layout.directory.path, reason: "recovery did not converge")
    }

    private func openParts() throws -> (BlobStore, MetadataIndex, UInt64) {
        if FlushMarker.hasUnflushedWritesFromEarlierBoot(in: layout.directory) {
            throw Problem.damaged("the machine went down with unflushed writes")
        }
        var marker: FlushMarker?
        if case .periodic = configuration.durability { marker = try FlushMarker(directory: layout.directory) }
        let blobs: BlobStore
        do {
            blobs = try BlobStore(
                directory: layout.blobs, durability: configuration.durability,
                initialMapBytes: configuration.initialMapBytes ?? max(64 << 20, configuration.byteLimit * 2),
                flushMarker: marker)
        } catch let .damaged(reason) {
            throw Problem.damaged("blob store: \(reason)")
        } catch let .failed(error) {
            throw error
        }
        do {
            let info = try loadInfo(blobs)
            if info.format > StoreInfo.currentFormat {
                throw Problem.newer("blob store format \(info.format), this version reads \(StoreInfo.currentFormat)")
            }
            let index = try openIndex(blobs)
            do {
                let mirror = StoreMirror(blobs: blobs, index: index, logger: configuration.logger)
                let applied = try mirror.catchUp()
                return (blobs, index, applied)
            } catch {
                index.close()
                throw error
            }
        } catch {
            blobs.close()
            if case let StorageError.lmdb(_, code, message) = error, LMDBError.meansCorruption(code) {
                throw Problem.damaged("blob store: \(message)")
            }
            throw error
        }
    }

    private func loadInfo(_ blobs: BlobStore) throws -> StoreInfo {
        try blobs.write { txn in
            if let info = try txn.storeInfo(blobs.databases) { return info }
            // A store with records but no info is not one this code wrote.
            if try txn.count(blobs.databases.records) > 0 {
                throw StorageError.lmdb(operation: "read store info", code: MDB_CORRUPTED, message: "records without store info")
            }
            let info = StoreInfo.fresh()
            try txn.writeStoreInfo(info, blobs.databases)
            return info
        }
    }

    /// Opens the index; a damaged one is moved aside and rebuilt from LMDB by the first catch-up.
    private func openIndex(_ blobs: BlobStore) throws -> MetadataIndex {
        do {
            return try MetadataIndex(path: layout.index.path)
        } catch let .newer(version) {
            throw Problem.newer("index schema \(version), this version reads \(IndexSchema.currentVersion)")
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
                return try MetadataIndex(path: layout.index.path)
            } catch {
                throw StorageError.corruptStore(path: layout.directory.path, reason: "index cannot be recreated: \(error)")
            }
        }
    }

    private func quarantine(_ parts: [URL], reason: String) throws -> URL {
        do {
            return try layout.quarantine(parts, reason: reason)
        } catch {
            throw StorageError.io(
                path: layout.quarantine.path, operation: "move the damaged store aside", errno: errno,
                message: "\(error)")
        }
    }
}
