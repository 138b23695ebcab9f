import Foundation

/// A memory tier a caller in this package keeps in front of the cache's own tiers: the image
/// pipeline's, which holds decoded-image facts the cache's entries do not carry.
///
/// When it has an entry, that entry is used instead of the cache's lookup; what a background
/// (`stale-while-revalidate`) refresh stores is handed to `refreshed`, so the front tier stops
/// serving the stale copy. Invalidations by unsafe methods are not reported: the pipeline sends GET only.
package struct FrontTier: Sendable {
    package var entry: StoredEntry?
    package var refreshed: @Sendable (StoredEntry) -> Void

    package init(entry: StoredEntry?, refreshed: @escaping @Sendable (StoredEntry) -> Void) {
        self.entry = entry
        self.refreshed = refreshed
    }
}
