import Foundation

/// The store's room on its volume: the byte limit in force and the hold on LMDB's file growth.
extension StoreCore {
    /// While the volume's free space binds the store, LMDB's file may grow only into the free
    /// space above what the policy keeps free (``SpaceMonitor/fileCeiling(fileBytes:growth:)``);
    /// a batch that needs more makes room by evicting first (see `commitGroup`). The limit in
    /// force follows the free space only after a batch commits, and pages freed by eviction are
    /// not always reusable (a large blob needs a run of them), so without the hold one batch
    /// could fill the volume.
    func holdFileGrowth(forPayload bytes: Int) {
        let ceiling = space.fileCeiling(
            fileBytes: { self.layout.dataFile.fileSize ?? 0 }, growth: SpaceMonitor.growthEstimate(forPayload: bytes))
        do {
            try blobs.limitGrowth(to: ceiling)
        } catch {
            space.warnOnce("ceiling", "Could not hold the cache's file to the volume's free space", error: error)
        }
    }

    /// The byte limit in force: ``StoreConfiguration/byteLimit``, or less when the volume cannot
    /// spare that much (counting the free pages inside LMDB's file, which the store reuses before
    /// the file grows, so evicting lowers the store's bytes without lowering its limit).
    /// LMDB's free list is walked only when the free space binds.
    func byteLimit(storeBytes: Int) -> ByteLimit {
        let quick = space.effectiveLimit(configuredLimit: configuration.byteLimit, storeBytes: storeBytes)
        guard quick.boundByFreeSpace else { return quick }
        let reusable = (try? blobs.reusableBytes()) ?? 0
        return space.effectiveLimit(configuredLimit: configuration.byteLimit, storeBytes: storeBytes, reusableBytes: reusable)
    }
}
