import CacheStorage
import CacheArchive
import Foundation

/// One entry as `list`, `stats` and `purge --dry-run` report it: the fields people sort and filter by.
struct EntrySummary: Encodable {
    var key: String
    var bytes: Int
    var format: String?
    var width: Int?
    var height: Int?
    var storedAt: Date
    var lastAccess: Date
    var expires: Date?
    var etag: String?
    var freshness: FreshnessVerdict.State
    /// The key of the entry this one was derived from (a thumbnail's original); nil for an original.
    var source: String?

    init(_ metadata: EntryMetadata, now: Date) {
        key = metadata.key
        bytes = metadata.byteCount
        format = metadata.attributes.format
        width = metadata.attributes.pixelWidth
        height = metadata.attributes.pixelHeight
        storedAt = metadata.storedAt
        lastAccess = metadata.lastAccess
        expires = metadata.attributes.expiresAt
        etag = metadata.attributes.etag
        freshness = FreshnessVerdict.state(of: metadata, now: now)
        source = metadata.source?.key
    }

    /// Writes every field, absent ones as `null`, so scripts see the same keys on every entry.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(key, forKey: .key)
        try container.encode(bytes, forKey: .bytes)
        try container.encode(format, forKey: .format)
        try container.encode(width, forKey: .width)
        try container.encode(height, forKey: .height)
        try container.encode(storedAt, forKey: .storedAt)
        try container.encode(lastAccess, forKey: .lastAccess)
        try container.encode(expires, forKey: .expires)
        try container.encode(etag, forKey: .etag)
        try container.encode(freshness, forKey: .freshness)
        try container.encode(source, forKey: .source)
    }

    private enum CodingKeys: String, CodingKey {
        case key, bytes, format, width, height, storedAt, lastAccess, expires, etag, freshness, source
    }
}

extension EntrySummary {
    /// `386×395`, or `-` when the pixel size is unknown.
    var pixelSizeText: String { Self.pixelSizeText(width: width, height: height) }

    static func pixelSizeText(width: Int?, height: Int?) -> String {
        guard let width, let height else { return "-" }
        return "\(width)×\(height)"
    }
}

extension EntryMetadata {
    /// `386×395`, or `-` when the pixel size is unknown.
    var pixelSizeText: String {
        EntrySummary.pixelSizeText(width: attributes.pixelWidth, height: attributes.pixelHeight)
    }

    /// When the entry expires, relative to `now`: `in 3 h`, `2 d ago`, or `never`.
    func expiryText(now: Date) -> String {
        attributes.expiresAt.map { TimeSpan.relative($0, to: now) } ?? "never"
    }
}
