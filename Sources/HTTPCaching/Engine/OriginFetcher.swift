import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Exchanges with origins, below any caching: fetch slots, retries of transient failures and
/// statuses, and bodies read through an acceptor under the size limit.
///
/// ``HTTPCache`` fetches through one. The image pipeline's policies that keep no HTTP cache
/// (`withViewCycle`, `duringAppSession`) fetch through the same one
/// (`HTTPCache.PipelineAccess.fetchUncached`), so their exchanges share the cache's slots and
/// retry rules without reading or writing storage.
struct OriginFetcher: Sendable {
    let transport: any HTTPTransport
    let retry: RetryPolicy
    let requestTimeout: Duration
    let maxBodyBytes: Int
    let fetchDeadline: Duration?
    let minimumTransferRate: MinimumTransferRate?
    /// The time exchanges are stamped with (``HTTPCache/Configuration``'s clock).
    let clock: @Sendable () -> Date
    /// Slots for exchanges, when the configuration sets a limit.
    let slots: FetchSlots?

    /// A response fetched whole, with when it was asked for and when its head arrived.
    struct Fetched: Sendable {
        let head: HTTPResponseHead
        let body: Data
        let description: BodyDescription
        let requestTime: Date
        let responseTime: Date
    }

    init(configuration: HTTPCache.Configuration) {
        transport = configuration.transport
        retry = configuration.retry
        requestTimeout = configuration.requestTimeout
        maxBodyBytes = configuration.maxBodyBytes
        fetchDeadline = configuration.fetchDeadline
        minimumTransferRate = configuration.minimumTransferRate
        clock = configuration.clock
        slots = configuration.maxConcurrentFetches.map { FetchSlots(limit: $0) }
    }

    /// Fetches `request` as it is, reading its body through `acceptor`: nothing is looked up, stored
    /// or invalidated.
    /// - Throws: ``HTTPCacheError``, as ``HTTPCache/response(for:accepting:progress:)`` does.
    func fetch(
        _ request: HTTPCacheRequest, accepting acceptor: any ResponseBodyAcceptor, progress: HTTPCache.ProgressHandler?
    ) async throws(HTTPCacheError) -> Fetched {
        let requestTime = clock()
        do {
            let (response, slot, watch) = try await send(request.head, url: request.url, body: request.body)
            defer { slot?.release() }
            let responseTime = clock()
            let (body, description) = try await read(response, watch: watch, acceptor: acceptor, progress: progress)
            return Fetched(
                head: response.head, body: body, description: description, requestTime: requestTime,
                responseTime: responseTime)
        } catch {
            throw HTTPCacheError(error, transport: transport)
        }
    }

    /// Reads `response`'s body through `acceptor`, under the size limit and the bounds `watch` holds
    /// the exchange to (a body already in hand is read without them: nothing is left to wait for).
    func read(
        _ response: TransportResponse, watch: ExchangeWatch, acceptor: any ResponseBodyAcceptor,
        progress: HTTPCache.ProgressHandler?
    ) async throws -> (body: Data, description: BodyDescription) {
        let reader = BodyReader(maxBodyBytes: maxBodyBytes)
        guard response.completeBody == nil else { return try await reader.read(response, acceptor: acceptor, progress: progress) }
        do {
            return try await watch.run {
                try await reader.read(response, acceptor: acceptor, progress: progress, watch: watch)
            }
        } catch let error as FetchBoundExceeded {
            // The reader was cancelled mid-body; a transport whose stream outlives its reader stops here.
            response.cancelTransfer?()
            throw error
        }
    }

    /// Methods whose requests may be repeated without a different effect (RFC 9110 §9.2.2): only
    /// these are retried.
    private static let idempotentMethods: Set<String> = ["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"]

    /// Sends `head` through the transport, retrying transient failures and statuses as ``retry``
    /// allows; returns once a response head has arrived, with the fetch slot the exchange holds
    /// (nil without a limit), which the caller releases once done with the body, and the watch that
    /// holds the exchange to its deadline and minimum rate, for reading the body under.
    func send(_ head: HTTPRequestHead, url: URL, body: Data?) async throws -> (TransportResponse, FetchSlots.Slot?, ExchangeWatch) {
        let request = TransportRequest(url: url, head: head, body: body, timeout: requestTimeout, maxBodyBytes: maxBodyBytes)
        let watch = ExchangeWatch(deadline: fetchDeadline, minimumRate: minimumTransferRate)
        let transport = transport
        var attempt = 1
        while true {
            try Task.checkCancellation()
            let mayRetry = Self.idempotentMethods.contains(head.method) && attempt < retry.maxAttempts
            let slot = try await slots?.acquire()
            do {
                let response = try await watch.run { try await transport.send(request) }
                guard mayRetry, RetryPolicy.transientStatuses.contains(response.head.status) else {
                    // Only the body that will be read is held to the rate: a retried response's
                    // head starting the windows would let the wait before the retry run them out.
                    watch.headArrived()
                    return (response, slot, watch)
                }
                // The abandoned body's stream ends when `response` goes, which cancels its transfer.
                slot?.release()
                let retryAfter = RetryPolicy.retryAfter(response.head.headers.firstValue(for: "Retry-After"), now: clock())
                try await Task.sleep(for: retry.delay(afterAttempt: attempt, retryAfter: retryAfter))
            } catch where mayRetry && !(error is CancellationError) && transport.isTransient(error) {
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
