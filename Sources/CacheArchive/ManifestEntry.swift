import CacheStorage
import Foundation

/// One entry of an export's `manifest.json`, which `import` reads back to restore keys and metadata.
///
/// `manifest.json` is a JSON array of these. Every key is always present (absent values are
/// `null`); dates are ISO 8601. `file` is relative to the export folder. `stored_response` is the
/// pipeline's stored HTTP response (status, headers, times), base64, so an imported entry is
/// revalidated and expires exactly as the original would.
public struct ManifestEntry: Codable, Equatable, Sendable {
    /// Whether an entry could be used as it was when exported (as `cachectl` judges it).
    public enum Freshness: String, Codable, Sendable, CaseIterable {
        /// No expiry recorded, or the expiry was still ahead.
        case fresh
        /// Past its expiry, with a validator to revalidate it.
        case stale
        /// Past its expiry, without a validator.
        case expired
    }

    public var key: String
    /// The image's file, relative to the export folder.
    public var file: String
    public var bytes: Int
    public var format: String?
    public var width: Int?
    public var height: Int?
    public var storedAt: Date?
    public var lastAccess: Date?
    public var etag: String?
    public var expires: Date?
    public var lastModified: String?
    public var contentType: String?
    public var responseDate: Date?
    /// The stored HTTP response, base64.
    public var storedResponse: String?
    public var freshness: Freshness?

    /// Creates an entry.
    public init(
        key: String, file: String, bytes: Int, format: String? = nil, width: Int? = nil, height: Int? = nil,
        storedAt: Date? = nil, lastAccess: Date? = nil, etag: String? = nil, expires: Date? = nil,
        lastModified: String? = nil, contentType: String? = nil, responseDate: Date? = nil,
        storedResponse: String? = nil, freshness: Freshness? = nil
    ) {
        self.key = key
        self.file = file
        self.bytes = bytes
        self.format = format
        self.width = width
        self.height = height
        self.storedAt = storedAt
        self.lastAccess = lastAccess
        self.etag = etag
        self.expires = expires
        self.lastModified = lastModified
        self.contentType = contentType
        self.responseDate = responseDate
        self.storedResponse = storedResponse
        self.freshness = freshness
    }

    /// The name of the manifest inside an export folder.
    public static let fileName = "manifest.json"

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(key, forKey: .key)
        try container.encode(file, forKey: .file)
        try container.encode(bytes, forKey: .bytes)
        try container.encode(format, forKey: .format)
        try container.encode(width, forKey: .width)
        try container.encode(height, forKey: .height)
        try container.encode(storedAt, forKey: .storedAt)
        try container.encode(lastAccess, forKey: .lastAccess)
        try container.encode(etag, forKey: .etag)
        try container.encode(expires, forKey: .expires)
        try container.encode(lastModified, forKey: .lastModified)
        try container.encode(contentType, forKey: .contentType)
        try container.encode(responseDate, forKey: .responseDate)
        try container.encode(storedResponse, forKey: .storedResponse)
        try container.encode(freshness, forKey: .freshness)
    }

    /// The attributes an import restores; the stored-at and last-access times cannot be restored
    /// (the store stamps them when the entry is put).
    public var attributes: EntryAttributes {
        EntryAttributes(
            expiresAt: expires, etag: etag, lastModified: lastModified, responseDate: responseDate,
            responseHeaders: storedResponse.flatMap { Data(base64Encoded: $0) }, contentType: contentType,
            format: format, pixelWidth: width, pixelHeight: height)
    }
}
