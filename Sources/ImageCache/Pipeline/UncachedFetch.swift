import Foundation

/// A validated image fetched for a policy that keeps no HTTP cache (`withViewCycle`,
/// `duringAppSession`): the response as it arrived, and what the memory tier needs to keep it.
struct UncachedFetch {
    let fetched: HTTPCache.UncachedResponse
    let info: ImageInfo

    /// The caller's response: the origin's headers as they arrived, as for every fetch.
    var response: ImageResponse {
        ImageResponse(data: fetched.body, info: info, http: fetched.head, source: .network)
    }

    /// The image as the memory tier keeps it, with the response as the HTTP cache would store it,
    /// which a later persistent load is judged by. Built only for a policy that keeps it: storing
    /// the response costs a header pass.
    func cachedImage() -> CachedImage {
        CachedImage(data: fetched.body, info: info, http: fetched.storedResponse)
    }
}
