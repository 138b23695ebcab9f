import CLMDB
import Foundation
import Logging

/// The open store shared by every ``PersistentStore`` handle on one directory in this process.
///
/// LMDB must not be opened twice in one process (its locks are per process), so handles on the
/// same directory share one core through ``StoreRegistry``.
///
/// Each concept's work is an extension in the concept's folder: commit (`StoreCore+Commit`),
/// eviction, pointers, durability, space and the index mirror; the state each keeps sits in a
/// small type of its own.
final class StoreCore: Sendable {
    let configuration: StoreConfiguration
    /// Where the files are, the locks held on them, and why the store is read-only when it is.
    let folder: StoreFolder
    let blobs: BlobStore
    let index: MetadataIndex
    let writer: StoreWriter
    /// Reads waiting to be persisted, the index's helper thread and how far the index has mirrored.
    let mirroring: IndexMirroring
    /// The write-back thread and periodic durability's bookkeeping.
    let durability = StoreDurability()
    /// The volume's free space, the effective limit, whether writes are paused, and the reserve.
    let space: SpaceMonitor
    /// The writer's eviction in slices (see `evict`).
    let eviction = Locked(EvictionState())
    /// The writer's merge of the pointer tail into `records` (see ``PointerMerge``).
    let pointerMerge = Locked(PointerMerge())

    var layout: StoreLayout { folder.layout }
    var usersLock: FileLock? { folder.usersLock }
    var openLock: FileLock? { folder.openLock }
    var readOnlyReason: String? { folder.readOnlyReason }
    var accessLog: AccessLog { mirroring.accessLog }
    var logger: Logger { configuration.logger }
    var mirror: StoreMirror { StoreMirror(blobs: blobs, index: index, logger: logger) }

    init(directory: URL, configuration: StoreConfiguration) throws {
        let layout = StoreLayout(directory: directory)
        self.configuration = configuration
        let opened = try StoreOpener(layout: layout, configuration: configuration).open()
        blobs = opened.blobs
        index = opened.index
        mirroring = IndexMirroring(appliedSequence: opened.appliedSequence)
        folder = StoreFolder(
            layout: layout, usersLock: opened.usersLock, openLock: opened.openLock, readOnlyReason: opened.readOnlyReason)
        let readOnlyReason = opened.readOnlyReason
        space = SpaceMonitor(
            directory: directory, policy: configuration.diskSpace,
            reserve: SpaceReserve(url: layout.reserve, sharing: configuration.sharing), logger: configuration.logger)
        let idleInterval: TimeInterval
        if case let .periodic(interval) = configuration.durability {
            idleInterval = max(0.01, Double(interval.wholeMilliseconds) / 1000)
        } else {
            idleInterval = 1
        }
        writer = StoreWriter(idleInterval: idleInterval, maxBatchBytes: configuration.maxBatchBytes)
        if let readOnlyReason {
            let refusal = StorageError.readOnly(path: directory.path, reason: readOnlyReason)
            writer.start { batch, _ in
                for item in batch { item.completion(.failure(refusal)) }
            }
            return
        }
        if let failure = opened.spaceFailure {
            space.pause(failure)
        } else if let volume = space.volume(), volume.availableBytes < 1 << 20,
            (try? blobs.reusableBytes()) ?? 0 < 1 << 20
        {
            // Opened on a full disk: say so at once (statistics, cachectl stats) rather than at the first put.
            space.pause(.diskFull(path: layout.dataFile.path, operation: "write to"))
        }
        space.replenishReserveIfDue()
        if case .periodic = configuration.durability, FlushMarker.isDirty(in: layout) {
            // A process was killed within a second of writing, in this boot: its writes are in the
            // page cache, so one sync now makes them durable and the marker clean. Without it, a
            // normal reboot later would find `dirty` and throw the whole cache away.
            do {
                try blobs.sync()
            } catch {
                space.warnOnce("flush", "Could not sync a store left dirty by a killed process", error: error)
            }
        }
        writer.start { [self] batch, idle in
            if idle { idlePass() } else { process(batch) }
        }
        durability.writeback.start { [self] job in
            switch job {
            case .checkpointIndex: index.checkpointBesideWriter()
            case .writeBackBlobs:
                blobs.writeBack()
                // A marked sync waiting for this write-back can run now, idle or not.
                if durability.flushState.withLock({ $0.writeBackFinished() }) { writer.wake() }
            }
        }
    }

    var isReadOnly: Bool { readOnlyReason != nil }

    /// The journal sequence up to which entries may be trimmed: what the index file has mirrored.
    /// An index held in memory (see `StoreOpener`) trims nothing, so the file can replay the
    /// journal when it opens next.
    var trimmableSequence: UInt64 { index.isPersistent ? mirroring.appliedSequence.withLock { $0 } : 0 }

    func close() {
        writer.stop()
        mirroring.helper.stop()
        durability.writeback.stop()
        // The writer's last pass may only have asked for a write-back: the store closes synced.
        if !isReadOnly { flushIfDue(force: true) }
        // A read recorded after the writer's last idle pass (it may have begun before `stop`)
        // would otherwise be lost: the thread has ended, so its connection is free to persist it.
        if !isReadOnly { synchronizeIndex() }
        // The next process to open this store may find the disk full and need the reserve to open
        // and purge: a reserve given up during a full disk is taken back now if there is room,
        // whether or not the periodic attempt was due.
        if !isReadOnly { space.replenishReserveIfDue(force: true) }
        index.close()
        blobs.close()
        usersLock?.unlock()
    }
}
