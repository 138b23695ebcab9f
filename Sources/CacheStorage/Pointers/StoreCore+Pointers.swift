import Foundation

/// The writer's merge of the pointer tail, between batches.
extension StoreCore {
    /// Writes one slice of the pointer tail's merge, when one is due (see ``PointerMerge``). A
    /// failure (a full disk) drops the round: the pointers stay in the tail, where they are found,
    /// and a later round takes them.
    func mergePointersIfDue() {
        guard !isReadOnly else { return }
        pointerMerge.withLock { merge in
            do {
                try merge.step(
                    blobs, threshold: configuration.pointerMergeThreshold, sliceSize: configuration.pointerMergeSlice)
            } catch {
                merge.abandon()
                if let error = error as? StorageError, error.isOutOfSpace {
                    space.pause(error)
                } else {
                    space.warnOnce("merge", "Could not merge the pointer tail; a later round will", error: error)
                }
            }
        }
    }
}
