import Foundation

/// The question every fast path asks: may this stored response answer a plain request now, without
/// the origin? Answered here, from the same rules as ``decision(for:stored:now:)``, so that no
/// caller restates them.
extension CachePolicyEvaluator {
    /// When `stored` may answer a `GET` without header fields of its own, without contacting the
    /// origin: while ``PlainReuse/isFresh(at:)`` holds, exactly when ``decision(for:stored:now:)``
    /// says ``Decision/useStored`` for such a request. Nil when it never may: its `Vary` does not
    /// match such a request, or it must be validated before each use (`no-cache` the override does
    /// not lift).
    ///
    /// `summary`, the disk tier's ``StoredFreshness`` of `stored`, saves parsing its headers when it
    /// was made under this evaluator's heuristic settings; otherwise the headers are read.
    package func plainReuse(of stored: StoredResponse, summary: StoredFreshness? = nil) -> PlainReuse? {
        func judged(_ summary: StoredFreshness) -> FreshnessFacts? {
            summary.facts(under: self, status: stored.status, responseTime: stored.responseTime)
        }
        let usable: StoredFreshness
        let facts: FreshnessFacts
        if let summary, let summarised = judged(summary) {
            (usable, facts) = (summary, summarised)
        } else {
            usable = StoredFreshness(stored, evaluator: self)
            // A summary made under this evaluator's own settings is always usable by it.
            guard let fresh = judged(usable) else { return nil }
            facts = fresh
        }
        // decision(for:stored:now:) steps 1 and 2 for a request without header fields.
        guard !usable.varies, !(usable.noCache && !overrideApplies(to: stored.status)) else { return nil }
        return PlainReuse(override: override, facts: facts)
    }
}

/// A stored response a plain request may use while it is fresh, and the override it was judged
/// under (from ``CachePolicyEvaluator/plainReuse(of:summary:)``).
package struct PlainReuse: Sendable, Hashable {
    /// The override the judgement holds for; another override must ask again.
    package let override: FreshnessOverride
    /// Lifetime and age on arrival, for freshness at any instant and the `Age` of a response served.
    package let facts: FreshnessFacts

    /// Whether the response may be used at `now`: its lifetime exceeds its age then.
    package func isFresh(at now: Date) -> Bool {
        facts.isFresh(at: now)
    }
}
