import Foundation

extension HTTPCache {
    /// One read of the tiers for a plain request, made ahead of its load (the image pipeline's fast
    /// path): what it found, judged as it was read, and, handed to the load
    /// (``PipelineAccess/response(for:accepting:progress:after:)``), what the load uses instead of
    /// reading again: one load, one read, one hit or miss counted.
    ///
    /// A class, immutable: the fast path and the load it hands it to share one copy of the entry
    /// (an entry is a dozen references, each retained and released again by a copy).
    package final class Lookup: Sendable {
        /// What was found, as a plain request may use it.
        package let answer: Answer
        /// The storage key that was read.
        let key: String
        /// What the tiers held; nil when nothing.
        let found: Found?

        /// What a look-up found, as a plain request may use it.
        package enum Answer: Sendable {
            /// Stored, and a plain request may use it now without the origin.
            case fresh(FreshEntry)
            /// Stored, but a plain request may not use it as it is: past its freshness lifetime, to
            /// be validated at each use (`no-cache`), or varying on a field such a request lacks.
            /// The load decides by the full rule.
            case stale
            /// Nothing stored under the key, or a store that could not be read.
            case absent
        }

        /// A stored response a plain request may use now, as it is served.
        package struct FreshEntry: Sendable {
            /// The stored status and fields, with `Age` as of the look-up (RFC 9111 §5.1).
            package let head: HTTPResponseHead
            /// The stored body.
            package let body: Data
            /// What the body is, as stored beside it.
            package let description: BodyDescription
            /// The tier that held it.
            package let tier: HTTPCacheResponse.Tier
        }

        /// `found` under `key`, judged at `now` by `plainReuse`, the rule book's judgement of it for
        /// a plain request (nil: such a request may not use it as it is).
        init(key: String, found: Found?, plainReuse: PlainReuse?, now: Date) {
            self.key = key
            self.found = found
            guard let found else {
                answer = .absent
                return
            }
            guard let plainReuse, plainReuse.isFresh(at: now) else {
                answer = .stale
                return
            }
            answer = .fresh(
                FreshEntry(
                    head: CachePolicyEvaluator.servedHead(found.entry.response, age: plainReuse.facts.age(at: now)),
                    body: found.entry.body, description: found.entry.description, tier: found.tier))
        }
    }
}
