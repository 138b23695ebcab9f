import Foundation

/// A validated image fetched for a policy that keeps no HTTP cache (`withViewCycle`,
/// `duringAppSession`): the response as it arrived, and what the memory tier needs to keep it.
struct UncachedFetch {
    let fetched: OriginFetcher.Fetched
    let info: ImageInfo
    let request: HTTPRequestHead

    /// The caller's response: the origin's headers as they arrived, as for every fetch.
    var response: ImageResponse {
        ImageResponse(data: fetched.body, info: info, http: fetched.head, source: .network)
    }

    /// The image as the memory tier keeps it, with the response a later persistent load judges it
    /// by (its `Vary` fingerprints under `fingerprintKey`, the HTTP cache's, which judges it). Built
    /// only for a policy that keeps it: storing the response costs a header pass.
    func cachedImage(fingerprintKey: FingerprintKey) -> CachedImage {
        let stored = StoredResponse(
            response: fetched.head, request: request, requestTime: fetched.requestTime,
            responseTime: fetched.responseTime, fingerprintKey: fingerprintKey)
        return CachedImage(data: fetched.body, info: info, http: stored)
    }
}
