import CacheStorage
import Foundation

/// What the disk tier keeps beside a stored response so that a read can judge its freshness
/// without parsing its headers: the header-derived lifetime (no override applied), the corrected
/// age on arrival, the heuristic settings the lifetime was computed under, and the two facts that
/// rule out reuse without validation (`Vary`, `no-cache`).
///
/// Parsing `Cache-Control`, `Date`, `Expires` and `Age` on every disk hit cost more than reading
/// the image; computed once when the response is stored, it costs a few bytes per entry. A reader
/// whose heuristic settings differ from the writer's computes from the headers instead.
package struct StoredFreshness: Sendable, Hashable {
    /// The freshness lifetime from the headers alone, in seconds.
    var headerLifetime: Double
    /// The corrected initial age, in seconds.
    var ageAtReceipt: Double
    var heuristicFraction: Double
    /// The heuristic cap in seconds; infinity when there is none.
    var maximumHeuristicLifetime: Double
    /// A `GET` without header fields of its own does not match the response's `Vary` (RFC 9111
    /// §4.1). Summaries written before this meaning say whether `Vary` is present at all: a
    /// superset, so they only ever send a fast path to the full rule.
    package var varies: Bool
    /// The response has an unqualified `no-cache` (§5.2.2.4): validated before each use unless an
    /// override applies. Earlier summaries also set it for the qualified form, which the full rule
    /// then decides.
    package var noCache: Bool

    /// The summary of `stored` under `evaluator`'s heuristic settings (its override is not applied).
    package init(_ stored: StoredResponse, evaluator: CachePolicyEvaluator) {
        var plain = evaluator
        plain.override = .none
        let directives = stored.cacheControl
        let facts = plain.facts(of: stored, directives: directives)
        headerLifetime = facts.lifetime
        ageAtReceipt = facts.ageAtReceipt
        heuristicFraction = evaluator.heuristicFraction
        maximumHeuristicLifetime = Self.seconds(evaluator.maximumHeuristicLifetime)
        varies =
            stored.headers.contains("Vary")
            && !evaluator.matchesVary(stored, request: HTTPRequestHead(method: "GET", headers: [:]))
        noCache = directives.noCache == .all
    }

    /// The response's freshness under `evaluator` (its override applied), or nil when the summary
    /// was computed under other heuristic settings.
    package func facts(under evaluator: CachePolicyEvaluator, status: Int, responseTime: Date) -> FreshnessFacts? {
        guard heuristicFraction == evaluator.heuristicFraction,
            maximumHeuristicLifetime == Self.seconds(evaluator.maximumHeuristicLifetime)
        else { return nil }
        return FreshnessFacts(
            lifetime: evaluator.applyingOverride(to: headerLifetime, status: status), ageAtReceipt: ageAtReceipt,
            responseTime: responseTime)
    }

    /// The rules the summary was written under, without an override (which is the request's, not
    /// the response's): what a tool explaining a stored entry judges it by.
    package var writerEvaluator: CachePolicyEvaluator {
        CachePolicyEvaluator(
            heuristicFraction: heuristicFraction,
            maximumHeuristicLifetime: maximumHeuristicLifetime.isFinite ? HTTPSeconds.duration(maximumHeuristicLifetime) : nil)
    }

    private static func seconds(_ duration: Duration?) -> Double {
        duration?.seconds ?? .infinity
    }

    // MARK: Encoding

    /// Encoded size: four doubles and a flags byte.
    static let encodedCount = 33

    func append(to bytes: inout [UInt8]) {
        for value in [headerLifetime, ageAtReceipt, heuristicFraction, maximumHeuristicLifetime] {
            withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
        }
        bytes.append((varies ? 1 : 0) | (noCache ? 2 : 0))
    }

    /// Reads a summary written by ``append(to:)``; nil when the bytes are not one.
    init?(reading reader: inout HTTPBlobCoding.Reader) {
        guard let raw = reader.read(count: Self.encodedCount) else { return nil }
        func double(at index: Int) -> Double {
            Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)))
        }
        headerLifetime = double(at: 0)
        ageAtReceipt = double(at: 1)
        heuristicFraction = double(at: 2)
        maximumHeuristicLifetime = double(at: 3)
        let flags = raw[32]
        varies = flags & 1 != 0
        noCache = flags & 2 != 0
        guard flags & ~3 == 0, !headerLifetime.isNaN, !ageAtReceipt.isNaN, !heuristicFraction.isNaN,
            !maximumHeuristicLifetime.isNaN
        else { return nil }
    }
}
