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
    public var http: HTTPResponseHead? {
        get { storage.fields.http }
        set { update { $0.http = newValue } }
    }
    /// Where the bytes came from.
    public var source: ImageSource {
        get { storage.fields.source }
        set { update { $0.source = newValue } }
    }

    /// The fields, in one immutable box: a memory hit hands out a response it keeps, and copying
    /// the fields themselves costs a reference-count operation for the bytes and another for the
    /// headers; the box costs one. A change makes a new box.
    private var storage: Storage

    /// Creates a response.
    public init(data: Data, info: ImageInfo, http: HTTPResponseHead?, source: ImageSource) {
        storage = Storage(Fields(data: data, info: info, http: http, source: source))
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
        var source: ImageSource
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
