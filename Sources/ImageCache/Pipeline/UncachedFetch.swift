import Foundation

/// A validated image fetched for a policy that keeps no HTTP cache (`withViewCycle`,
/// `duringAppSession`): the response as it arrived, and what the memory tier needs to keep it.
struct UncachedFetch {
    let body: Data
    let info: ImageInfo
    let head: HTTPResponseHead
    let request: HTTPRequestHead
    let requestTime: Date
    let responseTime: Date

    /// The caller's response: the origin's headers as they arrived, as for every fetch.
    var response: ImageResponse {
        ImageResponse(data: body, info: info, http: head, source: .network)
    }

    /// The image as the memory tier keeps it, with the response a later persistent load judges it
    /// by (its `Vary` fingerprints under `fingerprintKey`, the HTTP cache's, which judges it). Built
    /// only for a policy that keeps it: storing the response costs a header pass.
    func cachedImage(fingerprintKey: FingerprintKey) -> CachedImage {
        let stored = StoredResponse(
            response: head, request: request, requestTime: requestTime, responseTime: responseTime,
            fingerprintKey: fingerprintKey)
        return CachedImage(data: body, info: info, http: stored)
    }
}
