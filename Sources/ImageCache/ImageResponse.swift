import Foundation

/// A loaded image: its bytes, what they are, and where they came from.
public struct ImageResponse: Sendable, Hashable {
    /// The image's bytes, validated.
    public var data: Data
    /// Format and pixel size, read from the headers of the image.
    public var info: ImageInfo
    /// The HTTP response head (stored or fresh), when the image came over HTTP.
    public var http: HTTPResponseHead?
    /// Where the bytes came from.
    public var source: ImageSource

    /// Creates a response.
    public init(data: Data, info: ImageInfo, http: HTTPResponseHead?, source: ImageSource) {
        self.data = data
        self.info = info
        self.http = http
        self.source = source
    }
}

/// Where a response's bytes came from.
public enum ImageSource: String, Sendable, Hashable {
    /// The memory tier, fresh.
    case memory
    /// The disk tier, fresh.
    case disk
    /// The network: nothing usable was cached.
    case network
    /// The cache, after the origin confirmed it unchanged (304).
    case revalidated
    /// The cache, stale: offline, the origin failed and `stale-if-error` allowed it, or
    /// `stale-while-revalidate` is refreshing it in the background.
    case stale
}
