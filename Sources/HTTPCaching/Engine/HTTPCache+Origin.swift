import Foundation

/// Asking the origin, and what its answer does to storage (RFC 9111 §3, §4.3, §4.4).
extension HTTPCache {
    /// Sends the request with `conditionalHeaders` added and acts on the answer: a 304 (or a 200 to
    /// `HEAD`) freshens `candidate`; a failure serves `candidate` stale where the headers allow it;
    /// anything else is read through the acceptor, passed on, and stored when the rules allow.
    func fetch(
        _ transaction: Transaction, conditionalHeaders: HeaderFields, candidate: StoredEntry?, mayServeStale: Bool = true
    ) async throws -> HTTPCacheResponse {
        let fallback = mayServeStale ? candidate : nil
        var outgoing = transaction.head
        for field in conditionalHeaders { outgoing.headers.removeAll(named: field.name) }
        for field in conditionalHeaders { outgoing.headers.append(field) }
        let requestTime = configuration.clock()
        let response: TransportResponse
        let slot: FetchSlots.Slot?
        let watch: ExchangeWatch
        do {
            (response, slot, watch) = try await origin.send(
                outgoing, url: transaction.request.url, body: transaction.request.body)
        } catch {
            return try answerFailure(error, fallback: fallback, transaction)
        }
        // Held until the body has been read or dropped, whichever way this returns.
        defer { slot?.release() }
        let responseTime = configuration.clock()
        let head = response.head
        if (500...599).contains(head.status),
            let stale = serveStale(fallback, context: .originError(status: head.status), transaction)
        {
            return stale
        }
        if let candidate, confirms(head, conditional: !conditionalHeaders.isEmpty, transaction) {
            if let updated = candidate.response.updating(with: head, requestTime: requestTime, responseTime: responseTime) {
                let entry = StoredEntry(response: updated, body: candidate.body, description: candidate.description)
                update(entry, transaction)
                return serve(entry, source: .revalidated, transaction, now: responseTime)
            }
            // Validators of another representation: the stored one is not confirmed. A 304 says
            // nothing more, so fetch afresh; a 200 to HEAD shows the stored response is outdated (§4.3.5).
            if head.status == 304 {
                slot?.release()  // the new exchange takes a slot of its own
                return try await fetch(transaction, conditionalHeaders: [:], candidate: nil)
            }
            await remove([transaction.key])
        }
        if transaction.evaluator.invalidatesStoredResponses(request: transaction.head, status: head.status) {
            await invalidate(transaction, locations: head.headers)
        }
        let body: Data
        let description: BodyDescription
        do {
            (body, description) = try await origin.read(
                response, watch: watch, acceptor: transaction.acceptor, progress: transaction.progress)
        } catch {
            return try answerFailure(error, fallback: fallback, transaction)
        }
        slot?.release()  // the exchange is over; storing needs no slot
        var stored: StoredResponse?
        if transaction.request.mode == .default, transaction.evaluator.isStorable(head, for: transaction.head) {
            let entry = StoredEntry(
                response: StoredResponse(
                    response: head, request: transaction.head, requestTime: requestTime, responseTime: responseTime,
                    fingerprintKey: transaction.evaluator.fingerprintKey),
                body: body, description: description)
            store(entry, transaction)
            stored = entry.response
        }
        return HTTPCacheResponse(
            head: head, body: body, source: .network, bodyDescription: description, storedResponse: stored)
    }

    /// The answer when the exchange failed: `fallback` served stale where the headers allow it, else
    /// a generated 504 when configured and the origin failed (RFC 9111 §4.2.4, §5.2.2.2), else the error.
    private func answerFailure(_ error: any Error, fallback: StoredEntry?, _ transaction: Transaction) throws -> HTTPCacheResponse {
        if let stale = serveStale(fallback, after: error, context: .originUnreachable, transaction) { return stale }
        if configuration.generatesGatewayTimeout, !Task.isCancelled, case .network = HTTPCacheError(error, transport: configuration.transport) {
            return Self.gatewayTimeout(now: configuration.clock())
        }
        throw error
    }

    /// Whether `head` speaks about the stored response rather than replacing it: a 304 to the
    /// cache's own conditional request (§4.3.4), or a 200 to `HEAD` (§4.3.5).
    private func confirms(_ head: HTTPResponseHead, conditional: Bool, _ transaction: Transaction) -> Bool {
        (head.status == 304 && conditional) || (head.status == 200 && transaction.request.method == "HEAD")
    }

    /// `candidate` served stale, if the evaluator allows it in `context`; never after a cancellation
    /// or a refusal, which are not the origin failing.
    private func serveStale(
        _ candidate: StoredEntry?, after error: (any Error)? = nil, context: CachePolicyEvaluator.StaleContext,
        _ transaction: Transaction
    ) -> HTTPCacheResponse? {
        guard let candidate, !Task.isCancelled else { return nil }
        if let error {
            switch HTTPCacheError(error, transport: configuration.transport) {
            case .network: break
            default: return nil
            }
        }
        let now = configuration.clock()
        guard transaction.evaluator.canServeStale(candidate.response, now: now, request: transaction.head, context: context)
        else { return nil }
        return serve(candidate, source: .stale, transaction, now: now)
    }
}
