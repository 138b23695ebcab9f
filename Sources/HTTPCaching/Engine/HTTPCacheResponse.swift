import Foundation

/// What ``HTTPCache`` answers: the response head, the body, and where they came from.
public struct HTTPCacheResponse: Sendable, Hashable {
    /// Where a response came from.
    public enum Source: Sendable, Hashable {
        /// Storage, without asking the origin: fresh, or allowed stale by the request (`max-stale`).
        case cache(Tier)
        /// The origin: nothing usable was stored, or the request could not be answered from storage.
        case network
        /// Storage, after the origin confirmed it (a 304, or a 200 to `HEAD`, RFC 9111 §4.3.4, §4.3.5).
        case revalidated
        /// Storage, stale: the origin failed and the headers allow it, `stale-while-revalidate` is
        /// refreshing it in the background, or the request was ``HTTPCacheRequest/Mode/onlyIfCached``.
        case stale
        /// Made by the cache: a 504 when it could neither serve from storage nor reach the origin
        /// (only with ``HTTPCache/Configuration/generatesGatewayTimeout``).
        case generated
    }

    /// Which storage tier answered.
    public enum Tier: Sendable, Hashable {
        /// The memory tier.
        case memory
        /// The disk tier (a `PersistentStore`).
        case disk
    }

    /// Status and headers. From storage they carry `Age` (RFC 9111 §5.1); from the network they are
    /// exactly as received, in order, repeated lines included.
    public var head: HTTPResponseHead
    /// The body; empty for `HEAD`, 204 and 304.
    public var body: Data
    /// Where the response came from.
    public var source: Source
    /// What the acceptor said about the body (from the network) or what was stored beside it.
    public var bodyDescription: BodyDescription
    /// The response as the cache now keeps it for this request; nil when it keeps none (not
    /// storable, ``HTTPCacheRequest/Mode/noStore``, or an unsafe method).
    public var storedResponse: StoredResponse?

    /// Creates a response.
    public init(
        head: HTTPResponseHead, body: Data, source: Source, bodyDescription: BodyDescription = BodyDescription(),
        storedResponse: StoredResponse? = nil
    ) {
        self.head = head
        self.body = body
        self.source = source
        self.bodyDescription = bodyDescription
        self.storedResponse = storedResponse
    }
}
