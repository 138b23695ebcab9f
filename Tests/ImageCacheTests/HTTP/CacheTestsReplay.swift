import CacheConformance
import Foundation

@testable import HTTPCaching
@testable import ImageCache

/// Replays one http-tests/cache-tests case against ``CachePolicyEvaluator`` with a simulated origin
/// and a simulated clock, applying the harness's own checks (`conventions` in cases.json).
///
/// The "cache" here is the evaluator plus a dictionary from URL to one ``StoredResponse``: the
/// smallest loader that can follow the decisions. No time passes for real; pauses advance the clock.
struct CacheTestsReplay {
    /// What one replayed test produced: the failed checks, split into those about whether a response
    /// came from the cache (the evaluator's decisions) and the rest (status, headers, origin log).
    struct Report {
        let id: String
        let kind: String
        var typeFailures: [String] = []
        var otherFailures: [String] = []

        var typesMatch: Bool { typeFailures.isEmpty }
        var passes: Bool { typeFailures.isEmpty && otherFailures.isEmpty }
    }

    /// Why `test` cannot be replayed here, or nil when it can: the replay covers GET requests, unsafe
    /// methods (for invalidation) and the freshness, validation and storage rules, not HEAD, ranges,
    /// interim responses or Location-based invalidation, which live outside this component.
    static func exclusionReason(_ test: CacheTestsCase) -> String? {
        guard test.applies.private else { return "shared caches only" }
        for request in test.requests {
            if request.method == "HEAD" { return "HEAD requests" }
            if request.requestHeaders.contains(where: { $0.name.lowercased() == "range" }) { return "range requests" }
            if request.origin.responseStatus.code == 206 { return "partial content" }
            if !request.origin.interimResponses.isEmpty { return "interim responses" }
            if request.magicIms { return "client-sent conditional requests" }
            if request.fetchOptions.keys.contains(where: { $0 != "redirect" }) { return "fetch() cache modes" }
            let specs = request.requestHeaders + request.origin.responseHeaders
            if specs.contains(where: { $0.locationPath != nil }) { return "Location / Content-Location URLs" }
            if specs.contains(where: { ($0.dateFormat ?? "imf-fixdate") != "imf-fixdate" }) {
                return "RFC 850 dates sent"
            }
        }
        let checksSomething = test.requests.contains { $0.expected.type != nil || $0.expected.status.mode == "equals" }
        return checksSomething ? nil : "nothing to check"
    }

    /// The evaluator under test.
    var evaluator = CachePolicyEvaluator()

    /// A response as the client receives it.
    struct Received {
        let status: Int
        let headers: HeaderFields
    }

    /// One request as the origin saw it.
    struct LogEntry {
        let requestNumber: Int
        let headers: HeaderFields
    }

    /// The simulated world of one test: the clock, the cache's one stored response per URL, the
    /// origin's log and the response headers it resolved for each request it answered.
    private struct World {
        // A fractional start, like a real run: Date headers truncate to the second.
        var clock = HTTPFixture.start.addingTimeInterval(0.3)
        var store: [String: StoredResponse] = [:]
        var originLog: [LogEntry] = []
        var resolvedHeaders: [Int: HeaderFields] = [:]
    }

    func run(_ test: CacheTestsCase) -> Report {
        var report = Report(id: test.id, kind: test.kind)
        var world = World()
        for request in test.requests {
            var clientHeaders: HeaderFields = ["Test-ID": test.id, "Req-Num": "\(request.num)"]
            for spec in request.requestHeaders {
                clientHeaders.append(spec.name, CacheTestsOrigin.resolve(spec, serverNow: world.clock))
            }
            let head = HTTPRequestHead(method: request.method, headers: clientHeaders)
            let stored = world.store[request.urlSuffix]
            let received: Received
            switch evaluator.decision(for: head, stored: stored, now: world.clock) {
            case .useStored, .useStoredAndRevalidateInBackground:
                guard let stored else { preconditionFailure("the evaluator reused a response that is not stored") }
                received = serve(stored, at: world.clock)
            case .unavailable:
                received = Received(status: 504, headers: [:])
            case .revalidate(let conditional):
                received = exchange(request, head, conditional: conditional, fallback: stored, test: test, &world)
            case .fetch(let reason):
                // Only a response the decision weighed (not a Vary mismatch) may stand in for a failing origin.
                let fallback = reason == .noValidator ? stored : nil
                received = exchange(request, head, conditional: [:], fallback: fallback, test: test, &world)
            }
            Self.checkClientSide(request, received, into: &report)
            world.clock.addTimeInterval(0.001 + request.pauseAfterS)
        }
        Self.checkOriginLog(test, world.originLog, into: &report)
        return report
    }

    private func serve(_ stored: StoredResponse, at now: Date) -> Received {
        Received(status: stored.status, headers: evaluator.headersForServing(stored, now: now))
    }

    /// Sends the request to the origin and acts on the answer as a loader would: update on 304, serve
    /// stale where the evaluator allows it on failure, otherwise pass the response on, invalidating
    /// and storing as the evaluator says.
    private func exchange(
        _ request: CacheTestsCase.Request, _ head: HTTPRequestHead, conditional: HeaderFields,
        fallback: StoredResponse?, test: CacheTestsCase, _ world: inout World
    ) -> Received {
        var outgoing = head.headers
        for field in conditional { outgoing.append(field) }
        world.originLog.append(LogEntry(requestNumber: request.num, headers: outgoing))
        let requestTime = world.clock
        let originNow = world.clock.addingTimeInterval(0.005 + request.origin.responsePauseS)
        guard !request.origin.disconnect else {
            world.clock = originNow
            if let fallback,
                evaluator.canServeStale(fallback, now: originNow, request: head, context: .originUnreachable)
            {
                return serve(fallback, at: originNow)
            }
            return Received(status: 502, headers: [:])
        }
        let previous = request.num >= 2 ? test.requests[request.num - 2] : nil
        let response = CacheTestsOrigin.response(
            to: request, requestHeaders: outgoing, now: originNow, count: world.originLog.count,
            previous: world.resolvedHeaders[request.num - 1] ?? previous.map(CacheTestsOrigin.literalHeaders),
            resolved: &world.resolvedHeaders)
        let responseTime = originNow.addingTimeInterval(0.005)
        world.clock = responseTime
        let key = request.urlSuffix
        if response.status == 304, !conditional.isEmpty, let stored = world.store[key] {
            guard let updated = stored.updating(with: response, requestTime: requestTime, responseTime: responseTime)
            else { return Received(status: response.status, headers: response.headers) }
            world.store[key] = updated
            return serve(updated, at: responseTime)
        }
        if let fallback, (500...599).contains(response.status),
            evaluator.canServeStale(
                fallback, now: responseTime, request: head, context: .originError(status: response.status))
        {
            return serve(fallback, at: responseTime)
        }
        if evaluator.invalidatesStoredResponses(request: head, status: response.status) { world.store[key] = nil }
        if evaluator.isStorable(response, for: head) {
            world.store[key] = StoredResponse(
                response: response, request: head, requestTime: requestTime, responseTime: responseTime)
        }
        return Received(status: response.status, headers: response.headers)
    }
}
