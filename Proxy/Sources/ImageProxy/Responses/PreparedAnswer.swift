import Crypto
import Foundation
import ImageCache
import ImageFormats
import NIOCore
import NIOHTTP1
import Synchronization

/// What an image answer is made of, before the moment it is sent: the body, its header fields
/// (type, length, strong ETag, `Vary`, the content guards), and its freshness as an instant, so
/// that `max-age` counts down exactly while it is reused. Prepared once per loaded response and
/// reused while the pipeline hands out that same response for the same request (a thumbnail
/// served again from memory): hashing the body, reading the source's freshness and building the
/// heads then happen once per response and `max-age` value, not per request.
final class PreparedAnswer: Sendable {
    /// How long downstream caches may keep it.
    enum Freshness: Sendable {
        /// A fixed `Cache-Control` value (`no-store`, `… no-cache`).
        case fixed(String)
        /// `scope, max-age=<whole seconds until expiry>`.
        case until(scope: String, expiry: Date)
    }

    /// The request it answers, and the response it was made from: it stands while the pipeline
    /// hands out that same response for that request.
    let request: ImageRequest
    let response: ImageResponse
    let body: ByteBuffer
    let etag: String
    let freshness: Freshness
    /// The fields a 304 carries too: everything but the type, the length and `Cache-Control`.
    private let validatorFields: HTTPHeaders
    private let contentType: String
    /// The heads last made, for the `max-age` they say: made again only when it changes.
    private let heads = Mutex<Heads?>(nil)

    private struct Heads {
        let cacheControl: String
        let ok: NIOHTTP1.HTTPResponseHead
        let notModified: NIOHTTP1.HTTPResponseHead
    }

    init(request: ImageRequest, response: ImageResponse, body: Data, contentType: String, varies: Bool) {
        self.request = request
        self.response = response
        self.body = ByteBuffer(data: body)
        self.contentType = contentType
        etag = Self.strongETag(of: body)
        freshness = Self.freshness(of: response)
        var fields: HTTPHeaders = ["ETag": etag]
        if varies { fields.add(name: "Vary", value: "Accept") }
        // Bytes from the source are shown as the image they are, never sniffed into a page; an
        // SVG passed through as it is runs no script and loads nothing.
        fields.add(name: "X-Content-Type-Options", value: "nosniff")
        if contentType == ImageFormat.svg.mimeType {
            fields.add(name: "Content-Security-Policy", value: "default-src 'none'; style-src 'unsafe-inline'; sandbox")
        }
        validatorFields = fields
    }

    /// The answer to a request with `ifNoneMatch`, at `now`: a 304 when it names this ETag.
    func answer(ifNoneMatch: String?, now: Date = Date()) -> ProxyAnswer {
        let cacheControl = cacheControl(now: now)
        let made = heads.withLock { heads -> Heads in
            if let heads, heads.cacheControl == cacheControl { return heads }
            var fields = validatorFields
            fields.add(name: "Cache-Control", value: cacheControl)
            let notModified = NIOHTTP1.HTTPResponseHead(version: .http1_1, status: .notModified, headers: fields)
            fields.add(name: "Content-Type", value: contentType)
            fields.add(name: "Content-Length", value: String(body.readableBytes))
            let made = Heads(
                cacheControl: cacheControl, ok: NIOHTTP1.HTTPResponseHead(version: .http1_1, status: .ok, headers: fields),
                notModified: notModified)
            heads = made
            return made
        }
        if let ifNoneMatch, Self.matches(ifNoneMatch, etag: etag) { return ProxyAnswer(head: made.notModified) }
        return ProxyAnswer(head: made.ok, body: body)
    }

    /// `Cache-Control` now.
    func cacheControl(now: Date = Date()) -> String {
        switch freshness {
        case let .fixed(value): value
        case let .until(scope, expiry): "\(scope), max-age=\(max(0, Int(expiry.timeIntervalSince(now).rounded(.down))))"
        }
    }

    /// `no-store` and `no-cache` passed on, the source's remaining freshness (the rule book's
    /// judgement) as an expiry, `private` kept.
    static func freshness(of response: ImageResponse, now: Date = Date()) -> Freshness {
        guard let head = response.http else { return .fixed("public, max-age=0") }
        if CachePolicyEvaluator.hasDirective("no-store", in: head) { return .fixed("no-store") }
        let scope = CachePolicyEvaluator.hasDirective("private", in: head) ? "private" : "public"
        if CachePolicyEvaluator.hasDirective("no-cache", in: head) { return .fixed("\(scope), no-cache") }
        let remaining = CachePolicyEvaluator().remainingFreshness(of: head, now: now)
        let (seconds, attoseconds) = remaining.components
        return .until(scope: scope, expiry: now.addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18))
    }

    /// A strong validator of exactly these bytes: the first 128 bits of their SHA-256, in hex.
    static func strongETag(of body: Data) -> String {
        let digest = SHA256.hash(data: body)
        let hex = Array("0123456789abcdef".utf8)
        var text: [UInt8] = [UInt8(ascii: "\"")]
        for byte in digest.prefix(16) { text += [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]] }
        text.append(UInt8(ascii: "\""))
        return String(decoding: text, as: UTF8.self)
    }

    /// Whether an `If-None-Match` value names `etag` (or is `*`); weak comparison, as §13.1.2 asks.
    static func matches(_ ifNoneMatch: String, etag: String) -> Bool {
        ifNoneMatch.split(separator: ",").contains { candidate in
            let tag = candidate.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }
}
