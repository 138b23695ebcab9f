import Foundation

/// Answering from storage: look up, ask the evaluator, serve or go to the origin (RFC 9111 §4).
extension HTTPCache {
    func respond(to transaction: Transaction) async throws -> HTTPCacheResponse {
        switch transaction.request.mode {
        case .noStore: return try await fetch(transaction, conditionalHeaders: [:], candidate: nil)
        case .onlyIfCached: return try answerOffline(transaction)
        case .default: break
        }
        let found = found(transaction)
        let now = configuration.clock()
        switch transaction.evaluator.decision(for: transaction.head, stored: found?.entry.response, now: now) {
        case .useStored:
            guard let found else { preconditionFailure("the evaluator reused a response that is not stored") }
            return serve(found.entry, source: .cache(found.tier), transaction, now: now)
        case let .useStoredAndRevalidateInBackground(conditionalHeaders):
            guard let found else { preconditionFailure("the evaluator reused a response that is not stored") }
            refreshInBackground(found.entry, conditionalHeaders: conditionalHeaders, transaction)
            return serve(found.entry, source: .stale, transaction, now: now)
        case let .revalidate(conditionalHeaders):
            return try await fetch(transaction, conditionalHeaders: conditionalHeaders, candidate: found?.entry)
        case .fetch(.noValidator):
            return try await fetch(transaction, conditionalHeaders: [:], candidate: found?.entry)
        case .fetch(.varyMismatch):
            // §4.3.1: the origin may still choose the stored variant; its entity tag lets it say so
            // with a 304. Another variant never stands in for a failing origin, though.
            let entityTags = HeaderFields(
                found?.entry.response.conditionalRequestHeaders.filter { $0.name == "If-None-Match" } ?? [])
            return try await fetch(
                transaction, conditionalHeaders: entityTags, candidate: entityTags.isEmpty ? nil : found?.entry,
                mayServeStale: false)
        case .fetch:
            return try await fetch(transaction, conditionalHeaders: [:], candidate: nil)
        case .unavailable:
            return try unavailable(transaction)
        }
    }

    /// Nothing stored may answer and the origin may not be asked: a generated 504 when configured
    /// (RFC 9111 §5.2.1.7), else ``HTTPCacheError/notCached(_:)``.
    private func unavailable(_ transaction: Transaction) throws -> HTTPCacheResponse {
        guard configuration.generatesGatewayTimeout else { throw HTTPCacheError.notCached(transaction.request.url) }
        return Self.gatewayTimeout(now: configuration.clock())
    }

    /// The response the cache makes itself when it can neither serve from storage nor reach the origin.
    static func gatewayTimeout(now: Date) -> HTTPCacheResponse {
        let headers: HeaderFields = ["Date": HTTPDate.string(from: now), "Content-Length": "0"]
        return HTTPCacheResponse(head: HTTPResponseHead(status: 504, headers: headers), body: Data(), source: .generated)
    }

    /// ``HTTPCacheRequest/Mode/onlyIfCached``: any stored response that matches, stale or not.
    private func answerOffline(_ transaction: Transaction) throws -> HTTPCacheResponse {
        guard ["GET", "HEAD"].contains(transaction.request.method), let found = found(transaction),
            transaction.evaluator.matchesVary(found.entry.response, request: transaction.head)
        else { return try unavailable(transaction) }
        let now = configuration.clock()
        let fresh = transaction.evaluator.isFresh(found.entry.response, now: now)
        return serve(found.entry, source: fresh ? .cache(found.tier) : .stale, transaction, now: now)
    }

    /// A stored entry as a response: `Age` set (§5.1), no body for `HEAD`, and only the requested
    /// bytes (a 206) when a `GET` asks for one range of a complete stored 200.
    func serve(
        _ entry: StoredEntry, source: HTTPCacheResponse.Source, _ transaction: Transaction, now: Date
    ) -> HTTPCacheResponse {
        var head = transaction.evaluator.servedHead(entry.response, now: now)
        var body = transaction.request.method == "HEAD" ? Data() : entry.body
        if let range = requestedRange(of: entry, transaction) {
            head.status = 206
            head.headers["Content-Range"] = range.contentRange
            head.headers["Content-Length"] = String(range.last - range.first + 1)
            body = range.slice(entry.body)
        }
        return HTTPCacheResponse(
            head: head, body: body, source: source, bodyDescription: entry.description, storedResponse: entry.response)
    }

    /// The single range a `GET` asks for, when the stored response is complete (a 200) and no
    /// `If-Range` makes the range conditional (then the whole response is the safe answer).
    private func requestedRange(of entry: StoredEntry, _ transaction: Transaction) -> ByteRange? {
        let headers = transaction.request.headers
        guard transaction.request.method == "GET", entry.response.status == 200, !headers.contains("If-Range"),
            let value = headers["Range"]
        else { return nil }
        return ByteRange(header: value, completeLength: entry.body.count)
    }

    /// `stale-while-revalidate` (RFC 5861 §3): the stale entry is served now; this brings it up to date.
    private func refreshInBackground(_ entry: StoredEntry, conditionalHeaders: HeaderFields, _ transaction: Transaction) {
        var withoutProgress = transaction
        withoutProgress.progress = nil
        let quiet = withoutProgress
        background.run {
            // Storing the refreshed response (or freshening the stale one) updates every tier.
            _ = try? await self.fetch(quiet, conditionalHeaders: conditionalHeaders, candidate: entry)
        }
    }
}
