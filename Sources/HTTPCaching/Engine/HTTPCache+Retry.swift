import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPCache {
    /// Methods whose requests may be repeated without a different effect (RFC 9110 §9.2.2): only
    /// these are retried.
    private static let idempotentMethods: Set<String> = ["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"]

    /// Sends `head` through the transport, retrying transient failures and statuses as
    /// ``Configuration/retry`` allows; returns once a response head has arrived, with the fetch slot
    /// the exchange holds (nil without a limit), which the caller releases once done with the body.
    func send(_ head: HTTPRequestHead, _ transaction: Transaction) async throws -> (TransportResponse, FetchSlots.Slot?) {
        let retry = configuration.retry
        let request = TransportRequest(
            url: transaction.request.url, head: head, body: transaction.request.body,
            timeout: configuration.requestTimeout, maxBodyBytes: configuration.maxBodyBytes)
        var attempt = 1
        while true {
            try Task.checkCancellation()
            let mayRetry = Self.idempotentMethods.contains(head.method) && attempt < retry.maxAttempts
            let slot = try await fetchSlots?.acquire()
            do {
                let response = try await configuration.transport.send(request)
                guard mayRetry, RetryPolicy.transientStatuses.contains(response.head.status) else { return (response, slot) }
                // The abandoned body's stream ends when `response` goes, which cancels its transfer.
                slot?.release()
                let retryAfter = RetryPolicy.retryAfter(response.head.headers.firstValue(for: "Retry-After"), now: Date())
                try await Task.sleep(for: retry.delay(afterAttempt: attempt, retryAfter: retryAfter))
            } catch where mayRetry && !(error is CancellationError) && configuration.transport.isTransient(error) {
                slot?.release()
                try await Task.sleep(for: retry.delay(afterAttempt: attempt, retryAfter: nil))
            } catch {
                slot?.release()
                throw error
            }
            attempt += 1
        }
    }
}
