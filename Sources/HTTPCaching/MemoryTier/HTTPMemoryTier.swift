/// A memory tier in front of the HTTP cache's disk tier: read before it, and kept in step by the
/// cache whenever it stores, freshens or removes a response.
///
/// The cache has one of its own (``HTTPCache/Configuration/memoryCostLimit``); the image pipeline
/// gives it one that keeps validated images and the facts it knows about them. Either way the
/// cache alone decides what goes in and what comes out; the tier only keeps it.
package protocol HTTPMemoryTier: Sendable {
    /// The entry kept for `key`, if any.
    func entry(for key: String) -> StoredEntry?

    /// Keeps `entry` for `key`, replacing what was kept. `plainReuse` is the rule book's judgement of
    /// it for a request without header fields of its own, when it was stored for one; nil otherwise.
    func keep(_ entry: StoredEntry, for key: String, plainReuse: PlainReuse?)

    /// Forgets what is kept for `key`.
    func remove(_ key: String)
}
