import Foundation

extension HTTPCache {
    /// A response fetched below the cache (``PipelineAccess/fetchUncached(_:accepting:progress:)``),
    /// for a caller that keeps it elsewhere: as it arrived, and as the cache would store it.
    package struct UncachedResponse: Sendable {
        /// Status and fields exactly as received.
        package let head: HTTPResponseHead
        /// The body, as the acceptor took it.
        package let body: Data
        private let request: HTTPRequestHead
        private let requestTime: Date
        private let responseTime: Date
        /// The cache's key for `Vary` fingerprints: a later load through the cache matches them.
        private let fingerprintKey: FingerprintKey

        init(_ fetched: OriginFetcher.Fetched, request: HTTPRequestHead, fingerprintKey: FingerprintKey) {
            head = fetched.head
            body = fetched.body
            self.request = request
            requestTime = fetched.requestTime
            responseTime = fetched.responseTime
            self.fingerprintKey = fingerprintKey
        }

        /// The response as the cache would store it, for the cache to judge later: made when asked
        /// for, since it costs a pass over the headers.
        package var storedResponse: StoredResponse {
            StoredResponse(
                response: head, request: request, requestTime: requestTime, responseTime: responseTime,
                fingerprintKey: fingerprintKey)
        }
    }
}
