import CacheArchive
import CacheStorage
import Foundation
import HTTPCaching

/// Whether an entry can be used as it is, and why.
///
/// The state follows the expiry the app recorded (`expiresAt`: the HTTP cache's rule book computes
/// it from the response's headers and the request's freshness override when it stores the entry,
/// and a property test holds it to the rule), so `stats`, `list`, `show` and `purge --expired`
/// agree without restating the rule:
/// - **fresh**: no expiry recorded, or the expiry is still ahead;
/// - **stale**: the expiry has passed, but the entry has a validator (`ETag` or `Last-Modified`), so
///   a conditional request can revalidate it (a 304 costs headers, not the image);
/// - **expired**: the expiry has passed and there is no validator: it will be downloaded again.
struct FreshnessVerdict: Sendable {
    /// The three states, as export manifests record them.
    typealias State = ManifestEntry.Freshness

    var state: State
    /// The sentence `show` prints: "fresh for 3 h more: max-age=86400, age 21 h".
    var explanation: String

    /// The state of `metadata` at `now`, without the explanation (cheap: no header decoding).
    static func state(of metadata: EntryMetadata, now: Date) -> State {
        guard metadata.isExpired(at: now) else { return .fresh }
        return hasValidator(metadata) ? .stale : .expired
    }

    /// Whether the entry can be revalidated: an `ETag` or `Last-Modified` in its attributes or headers.
    static func hasValidator(_ metadata: EntryMetadata) -> Bool {
        let attributes = metadata.attributes
        if attributes.etag?.isEmpty == false || attributes.lastModified?.isEmpty == false { return true }
        guard let stored = attributes.responseHeaders.flatMap(StoredResponse.init(encoded:)) else { return false }
        return !stored.conditionalRequestHeaders.isEmpty
    }

    /// The state and the reason, from the recorded expiry and the stored response's headers, judged
    /// under the heuristic settings the app stored it with (its freshness summary's), else the defaults.
    init(for metadata: EntryMetadata, now: Date) {
        state = Self.state(of: metadata, now: now)
        let annotated = metadata.attributes.responseHeaders.flatMap(StoredResponse.decodeAnnotated)
        let stored = annotated?.response
        let evaluator = annotated?.freshness?.writerEvaluator ?? CachePolicyEvaluator()
        var reasons: [String] = []
        if let stored {
            reasons.append(Self.headerReason(stored, evaluator, now: now))
        } else if let expiresAt = metadata.attributes.expiresAt {
            reasons.append("expiry recorded for \(Self.timestamp(expiresAt)), no stored response")
        } else {
            reasons.append("no expiry recorded")
        }
        let headline: String
        switch (state, metadata.attributes.expiresAt) {
        case (.fresh, nil):
            headline = "fresh, with no expiry"
        case let (.fresh, expiresAt?):
            headline = "fresh for \(TimeSpan.format(expiresAt.timeIntervalSince(now))) more"
        case let (.stale, expiresAt):
            headline = "stale for \(TimeSpan.format(now.timeIntervalSince(expiresAt ?? now)))"
            reasons.append("revalidatable with \(Self.validatorNames(metadata, stored))")
        case let (.expired, expiresAt):
            headline = "expired \(TimeSpan.format(now.timeIntervalSince(expiresAt ?? now))) ago"
            reasons.append("no ETag or Last-Modified, so it will be downloaded again")
        }
        if let stored, evaluator.isFresh(stored, now: now) != (metadata.isExpired(at: now) == false) {
            reasons.append("the app's freshness override set the recorded expiry")
        }
        explanation = headline + ": " + reasons.joined(separator: "; ")
    }

    /// Where the freshness lifetime comes from and the response's age: "max-age=86400, age 21 h".
    private static func headerReason(_ stored: StoredResponse, _ evaluator: CachePolicyEvaluator, now: Date) -> String {
        let age = "age \(TimeSpan.format((evaluator.currentAge(of: stored, now: now)).seconds))"
        let directives = stored.cacheControl
        var source: String
        if let maxAge = directives.maxAge {
            source = "max-age=\(Int(maxAge.seconds))"
        } else if let expires = stored.headers.firstValue(for: "Expires") {
            source = "Expires: \(expires)"
        } else if stored.headers.contains("Last-Modified") {
            let lifetime = (evaluator.freshnessLifetime(of: stored)).seconds
            let percent = (evaluator.heuristicFraction * 100).formatted(.number.precision(.fractionLength(0...1)))
            let cap = evaluator.maximumHeuristicLifetime.map { ", at most \(TimeSpan.format($0.seconds))" } ?? ""
            source = "heuristic lifetime \(TimeSpan.format(lifetime)) (\(percent) % of the time since Last-Modified\(cap))"
        } else {
            source = "no max-age, Expires or Last-Modified"
        }
        if directives.noCache != nil { source += ", no-cache (revalidated before each use)" }
        return "\(source), \(age)"
    }

    private static func validatorNames(_ metadata: EntryMetadata, _ stored: StoredResponse?) -> String {
        let etag = metadata.attributes.etag ?? stored?.headers.firstValue(for: "ETag")
        let lastModified = metadata.attributes.lastModified ?? stored?.headers.firstValue(for: "Last-Modified")
        return [etag.map { "ETag \($0)" }, lastModified.map { "Last-Modified \($0)" }]
            .compactMap { $0 }.joined(separator: " and ")
    }

    private static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
