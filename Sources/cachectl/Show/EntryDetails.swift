import CacheStorage
import CacheArchive
import Foundation
import HTTPCaching

/// Every field of one entry, its freshness verdict and its stored response, as `show` prints them.
struct EntryDetails: Encodable {
    struct Freshness: Encodable {
        var state: FreshnessVerdict.State
        var explanation: String
    }

    struct Header: Encodable {
        var name: String
        var value: String
    }

    /// The response the pipeline kept with the entry (decoded from the opaque `responseHeaders`),
    /// credentials left out (``StoredResponse/withoutCredentials``).
    struct Response: Encodable {
        var status: Int
        var requestTime: Date
        var responseTime: Date
        var headers: [Header]
        /// Request values `Vary` selects on, in clear: only from an earlier version's entries.
        var varyingRequestHeaders: [Header]
        /// The names of the request fields `Vary` selects on whose values are kept as fingerprints.
        var fingerprintedRequestFields: [String]
    }

    var key: String
    var bytes: Int
    var checksum: String
    var storedAt: Date
    var lastAccess: Date
    var expiresAt: Date?
    var etag: String?
    var lastModified: String?
    var responseDate: Date?
    var contentType: String?
    var format: String?
    var width: Int?
    var height: Int?
    var cost: Int?
    var freshness: Freshness
    var storedResponse: Response?
    /// Bytes of `responseHeaders` that are not a response the pipeline wrote, when there are some.
    var opaqueResponseHeadersBytes: Int?
    /// The key of the entry this one was derived from (a thumbnail's original), if any.
    var source: String?
    /// For a variant, what was made of the source: the processing's identifier (`max256`, `fill120x80`).
    var processing: String?
    /// The variants derived from this entry, which go when it goes.
    var variants: [EntrySummary]

    init(_ metadata: EntryMetadata, variants: [EntryMetadata], now: Date) {
        let attributes = metadata.attributes
        source = metadata.source?.key
        processing = metadata.source == nil ? nil : VariantGrouping.label(of: metadata)
        self.variants = variants.map { EntrySummary($0, now: now) }
        key = metadata.key
        bytes = metadata.byteCount
        checksum = String(format: "%016llx", metadata.checksum)
        storedAt = metadata.storedAt
        lastAccess = metadata.lastAccess
        expiresAt = attributes.expiresAt
        etag = attributes.etag
        lastModified = attributes.lastModified
        responseDate = attributes.responseDate
        contentType = attributes.contentType
        format = attributes.format
        width = attributes.pixelWidth
        height = attributes.pixelHeight
        cost = attributes.cost
        let verdict = FreshnessVerdict(for: metadata, now: now)
        freshness = Freshness(state: verdict.state, explanation: verdict.explanation)
        if let blob = attributes.responseHeaders {
            if let stored = StoredResponse(encoded: blob)?.withoutCredentials {
                storedResponse = Response(
                    status: stored.status, requestTime: stored.requestTime, responseTime: stored.responseTime,
                    headers: stored.headers.map { Header(name: $0.name, value: $0.value) },
                    varyingRequestHeaders: stored.varyingRequestHeaders.map { Header(name: $0.name, value: $0.value) },
                    fingerprintedRequestFields: stored.varyingRequestFingerprints.map(\.name))
            } else {
                opaqueResponseHeadersBytes = blob.count
            }
        }
    }

    func text(now: Date) -> String {
        func date(_ value: Date?) -> String {
            value.map { "\($0.formatted(.iso8601)) (\(TimeSpan.relative($0, to: now)))" } ?? "-"
        }
        let pixels = EntrySummary.pixelSizeText(width: width, height: height)
        var text = TextTable.pairs([
            ("key", key.displaySafe),
            ("size", "\(ByteSize.format(bytes)) (\(bytes) bytes)"),
            ("checksum", "\(checksum) (XXH64)"),
            ("format", format ?? "-"),
            ("pixels", pixels),
            ("content type", contentType?.displaySafe ?? "-"),
            ("stored", date(storedAt)),
            ("last read", date(lastAccess)),
            ("expires", expiresAt == nil ? "never (no expiry recorded)" : date(expiresAt)),
            ("ETag", etag?.displaySafe ?? "-"),
            ("Last-Modified", lastModified?.displaySafe ?? "-"),
            ("response date", date(responseDate)),
            ("cost", cost.map(String.init) ?? "- (its byte count)"),
            ("freshness", freshness.explanation.displaySafe),
        ])
        if let source {
            text += "\n" + TextTable.pairs([
                ("variant of", source.displaySafe + " (removed with it)"), ("processing", processing?.displaySafe ?? "-"),
            ])
        }
        if !variants.isEmpty {
            var table = TextTable(["variants (removed with this entry)", "size", "format", "pixels"], alignments: [.left, .right, .left, .right])
            for variant in variants {
                table.append([variant.key.displaySafe(limit: 70), ByteSize.format(variant.bytes), variant.format ?? "-", variant.pixelSizeText])
            }
            text += "\n\n" + table.render()
        }
        if let storedResponse {
            text += "\n\nstored response: \(storedResponse.status), received \(date(storedResponse.responseTime))"
            text += storedResponse.headers.map { "\n  \($0.name.displaySafe): \($0.value.displaySafe)" }.joined()
            if !storedResponse.varyingRequestHeaders.isEmpty {
                text += "\nrequest headers Vary selects on:"
                text += storedResponse.varyingRequestHeaders.map { "\n  \($0.name.displaySafe): \($0.value.displaySafe)" }.joined()
            }
            if !storedResponse.fingerprintedRequestFields.isEmpty {
                text += "\nrequest headers Vary selects on (as fingerprints, values not kept): "
                text += storedResponse.fingerprintedRequestFields.map(\.displaySafe).joined(separator: ", ")
            }
        } else if let opaqueResponseHeadersBytes {
            text += "\n\nstored response: \(opaqueResponseHeadersBytes) bytes not written by the image pipeline"
        } else {
            text += "\n\nstored response: none"
        }
        return text
    }
}
