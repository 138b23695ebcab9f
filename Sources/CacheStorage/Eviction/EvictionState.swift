/// The writer's bookkeeping of an eviction in slices (see `StoreCore.evict`).
struct EvictionState {
    /// Set on the writer thread while an eviction runs in slices.
    var running = false
    /// The low-water marks a batch's eviction is to go on to, once the batch has returned.
    var due: (bytes: Int?, entries: Int?)?
}
