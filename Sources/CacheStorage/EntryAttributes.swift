import Foundation

/// What a caller records about an entry besides its bytes: HTTP validators, freshness, image facts.
///
/// Storage keeps these verbatim and never interprets HTTP or image formats; the one field it acts
/// on is ``expiresAt``, which makes expired entries the first to go when the cache evicts.
public struct EntryAttributes: Sendable, Hashable {
    /// When the entry stops being fresh; `nil` when no expiry is known.
    public var expiresAt: Date?
    /// The response's `ETag`, verbatim.
    public var etag: String?
    /// The response's `Last-Modified`, verbatim.
    public var lastModified: String?
    /// The origin's `Date` header, parsed by the caller.
    public var responseDate: Date?
    /// The stored response headers, opaque to storage (the policy layer encodes and decodes them).
    public var responseHeaders: Data?
    /// The response's `Content-Type`.
    public var contentType: String?
    /// The sniffed image format, as a short lowercase name such as `"png"`.
    public var format: String?
    /// Pixel width, when the caller knows it.
    public var pixelWidth: Int?
    /// Pixel height, when the caller knows it.
    public var pixelHeight: Int?
    /// The caller's cost for the entry (for example decoded bytes); `nil` means its byte count.
    public var cost: Int?

    /// Creates attributes; every field is optional.
    public init(
        expiresAt: Date? = nil,
        etag: String? = nil,
        lastModified: String? = nil,
        responseDate: Date? = nil,
        responseHeaders: Data? = nil,
        contentType: String? = nil,
        format: String? = nil,
        pixelWidth: Int? = nil,
        pixelHeight: Int? = nil,
        cost: Int? = nil
    ) {
        self.expiresAt = expiresAt
        self.etag = etag
        self.lastModified = lastModified
        self.responseDate = responseDate
        self.responseHeaders = responseHeaders
        self.contentType = contentType
        self.format = format
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.cost = cost
    }
}
