import Foundation

extension HTTPCache {
    /// A derived body read from disk (``PipelineAccess/derivedBody(_:of:override:)``), with the
    /// response it was derived from and the rule book's judgement of that response for a plain
    /// request, which found it fresh.
    package struct DerivedBody: Sendable {
        /// The derived bytes.
        package let body: Data
        /// What they are (format, pixel size), as stored with them.
        package let description: BodyDescription
        /// The source response (validators, `Date`, `Content-Type` of the original).
        package let sourceResponse: StoredResponse
        /// The rule book's judgement of the source response, for a plain request.
        package let reuse: PlainReuse

        /// The source response's head as served at `now`: its `Age` then (RFC 9111 §5.1).
        package func servedHead(at now: Date) -> HTTPResponseHead {
            CachePolicyEvaluator.servedHead(sourceResponse, age: reuse.facts.age(at: now))
        }
    }
}
