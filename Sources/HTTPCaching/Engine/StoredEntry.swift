import Foundation

/// One stored response with its body and description: what the cache's tiers hold for a key.
package struct StoredEntry: Sendable, Hashable {
    package var response: StoredResponse
    package var body: Data
    package var description: BodyDescription
    /// The freshness summary the disk tier kept with the response, when it was read from disk.
    package var freshness: StoredFreshness? = nil

    package init(response: StoredResponse, body: Data, description: BodyDescription, freshness: StoredFreshness? = nil) {
        self.response = response
        self.body = body
        self.description = description
        self.freshness = freshness
    }

    /// The memory tier's cost: the description's, else the body's size.
    var cost: Int { description.cost ?? body.count }
}
