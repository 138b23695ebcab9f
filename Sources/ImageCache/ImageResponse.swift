import Foundation

/// A loaded image: its bytes, what they are, and where they came from.
public struct ImageResponse: Sendable, Hashable {
    /// The image's bytes, validated.
    public var data: Data {
        get { storage.fields.data }
        set { update { $0.data = newValue } }
    }
    /// Format and pixel size, read from the headers of the image.
    public var info: ImageInfo {
        get { storage.fields.info }
        set { update { $0.info = newValue } }
    }
    /// The HTTP response head (stored or fresh), when the image came over HTTP.
    ///
    /// A fetch (``ImageSource/network``) carries the origin's headers as they arrived, whatever the
    /// policy; a stored response carries what may be stored (hop-by-hop fields dropped). A response
    /// the cache answered carries an `Age` field (RFC 9111 §5.1): for a memory hit it is computed
    /// when this property is read, so it keeps counting while the image stays in memory.
    public var http: HTTPResponseHead? {
        get {
            guard let stored = storage.fields.agingFrom else { return storage.fields.http }
            // Computed here rather than on every hit: a memory hit hands out a response it keeps.
            return CachePolicyEvaluator().servedHead(stored, now: Date())
        }
        set {
            update {
                $0.http = newValue
                $0.agingFrom = nil
            }
        }
    }
    /// Where the bytes came from.
    public var source: ImageSource {
        get { storage.fields.source }
        set { update { $0.source = newValue } }
    }
    /// The image decoded as the request's ``ImageRequest/processing`` asked; nil when it asked for
    /// bytes only, and when a pipeline that keeps no processed pixels
    /// (``ImagePipeline/Configuration/keepsProcessedPixels``) answers with the processed image's
    /// stored bytes.
    public var decoded: DecodedImage? {
        get { storage.fields.decoded }
        set { update { $0.decoded = newValue } }
    }

    /// The fields, in one immutable box: a memory hit hands out a response it keeps, and copying
    /// the fields themselves costs a reference-count operation for the bytes and another for the
    /// headers; the box costs one. A change makes a new box.
    private var storage: Storage

    /// Creates a response.
    public init(
        data: Data, info: ImageInfo, http: HTTPResponseHead?, source: ImageSource, decoded: DecodedImage? = nil
    ) {
        storage = Storage(Fields(data: data, info: info, http: http, agingFrom: nil, source: source, decoded: decoded))
    }

    /// A response served from a stored HTTP response, whose head gets its `Age` when read.
    init(data: Data, info: ImageInfo, agingFrom stored: StoredResponse, source: ImageSource, decoded: DecodedImage? = nil) {
        storage = Storage(Fields(data: data, info: info, http: nil, agingFrom: stored, source: source, decoded: decoded))
    }

    private mutating func update(_ change: (inout Fields) -> Void) {
        var fields = storage.fields
        change(&fields)
        storage = Storage(fields)
    }

    public static func == (lhs: ImageResponse, rhs: ImageResponse) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.fields == rhs.storage.fields
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(storage.fields)
    }
}

extension ImageResponse {
    /// What a response is made of, for equality and hashing.
    private struct Fields: Hashable, Sendable {
        var data: Data
        var info: ImageInfo
        var http: HTTPResponseHead?
        /// The stored response `http` is made from, with a current `Age`, when it is read.
        var agingFrom: StoredResponse?
        var source: ImageSource
        var decoded: DecodedImage?
    }

    /// An ``ImageResponse``'s fields, never changed once made.
    private final class Storage: Sendable {
        let fields: Fields

        init(_ fields: Fields) { self.fields = fields }
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
