import CacheStorage
import Foundation

/// One entry of an export's `manifest.json`, which `import` reads back to restore keys and metadata.
///
/// `manifest.json` is a JSON array of these. Every key is always present (absent values are
/// `null`); dates are ISO 8601. `file` is relative to the export folder. `stored_response` is the
/// pipeline's stored HTTP response (status, headers, times), base64, so an imported entry is
/// revalidated and expires exactly as the original would.
struct ManifestEntry: Codable, Equatable {
    var key: String
    var file: String
    var bytes: Int
    var format: String?
    var width: Int?
    var height: Int?
    var storedAt: Date?
    var lastAccess: Date?
    var etag: String?
    var expires: Date?
    var lastModified: String?
    var contentType: String?
    var responseDate: Date?
    var storedResponse: String?
    var freshness: FreshnessVerdict.State?

    /// The name of the manifest inside an export folder.
    static let fileName = "manifest.json"

    func encode(to encoder: any Encoder) throws {
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
    var attributes: EntryAttributes {
        EntryAttributes(
            expiresAt: expires, etag: etag, lastModified: lastModified, responseDate: responseDate,
            responseHeaders: storedResponse.flatMap { Data(base64Encoded: $0) }, contentType: contentType,
            format: format, pixelWidth: width, pixelHeight: height)
    }
}
