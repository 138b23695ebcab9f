import Crypto
import Foundation
import ImageCache

/// What an image answer is made of, before the moment it is sent: the body, its type, its strong
/// ETag, and its freshness as an instant (so that `max-age` counts down exactly while it is
/// reused). Prepared once per loaded response and reused while the pipeline hands out that same
/// response (a thumbnail served again from memory): hashing the body and reading the source's
/// freshness then happen once, not per request.
struct PreparedAnswer: Sendable {
    /// How long downstream caches may keep it.
    enum Freshness: Sendable {
        /// A fixed `Cache-Control` value (`no-store`, `… no-cache`).
        case fixed(String)
        /// `scope, max-age=<whole seconds until expiry>`.
        case until(scope: String, expiry: Date)
    }

    let response: ImageResponse
    let body: Data
    let contentType: String
    let varies: Bool
    let etag: String
    let freshness: Freshness

    init(response: ImageResponse, body: Data, contentType: String, varies: Bool) {
        self.response = response
        self.body = body
        self.contentType = contentType
        self.varies = varies
        etag = Self.strongETag(of: body)
        freshness = Self.freshness(of: response)
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
}
