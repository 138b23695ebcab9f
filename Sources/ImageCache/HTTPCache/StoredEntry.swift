import Foundation

/// One stored response with its body and description: what the cache's tiers hold for a key.
struct StoredEntry: Sendable, Hashable {
    var response: StoredResponse
    var body: Data
    var description: BodyDescription
    /// The freshness summary the disk tier kept with the response, when it was read from disk.
    var freshness: StoredFreshness? = nil

    /// The memory tier's cost: the description's, else the body's size.
    var cost: Int { description.cost ?? body.count }
}
