import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Routes URLSession's delegate callbacks to each request's head continuation and body stream.
/// State is per task identifier, behind a lock (`Mutex`).
///
/// A small body with a known length (see ``onePieceLimit``) is gathered here and handed over whole,
/// together with its head, when the transfer completes: the head's continuation is resumed once
/// the stream already holds the body and its end, and the response carries the body whole as well
/// (``TransportResponse/completeBody``, which the cache reads without awaiting). Each resumption
/// wakes the reading task on another thread; head, chunk and end separately cost three wake-ups
/// where URLSession's own `data(from:)` costs one. Refusing a bomb or an HTML page from its first
/// bytes matters for large bodies, which still stream as they arrive.
///
/// Bytes are counted as delivered, after URLSession has undone any `Content-Encoding`: a 200 KB gzip
/// body announced as such can inflate to gigabytes, so `Content-Length` bounds nothing. Past the
/// request's limit the exchange fails at once with ``HTTPCacheError/bodyTooLarge(limit:)`` and the
/// task is cancelled, so neither the gathered body nor the stream's buffer grows beyond the limit.
final class StreamingDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private struct Exchange {
        var head: CheckedContinuation<TransportResponse, any Error>?
        let body: AsyncThrowingStream<Data, any Error>
        let chunks: AsyncThrowingStream<Data, any Error>.Continuation
        /// A small body being gathered, with the response its head waits to deliver.
        var gathering: Gathering?
        /// The most body bytes to take (``TransportRequest/maxBodyBytes``); nil for no limit.
        let maxBodyBytes: Int?
        /// Body bytes delivered or gathered so far.
        var receivedBytes = 0
    }

    private struct Gathering {
        var data: Data
        let response: TransportResponse
    }

    /// What one callback decided to deliver, done after the lock is dropped.
    private struct Delivery {
        var head: (CheckedContinuation<TransportResponse, any Error>, Result<TransportResponse, any Error>)?
        var chunk: Data?
        var end: Result<Void, any Error>?
        let chunks: AsyncThrowingStream<Data, any Error>.Continuation

        /// The chunk and the end first, so a reader woken by the head finds the body waiting.
        func perform() {
            if let chunk { chunks.yield(chunk) }
            switch end {
            case .success: chunks.finish()
            case let .failure(error): chunks.finish(throwing: error)
            case nil: break
            }
            if let (continuation, result) = head { continuation.resume(with: result) }
        }
    }

    /// Bodies announced at this size or less are delivered in one piece, with their head.
    static let onePieceLimit = 256 * 1024

    private let exchanges = Mutex<[Int: Exchange]>([:])

    func register(
        _ task: URLSessionTask, head: CheckedContinuation<TransportResponse, any Error>,
        body: AsyncThrowingStream<Data, any Error>, chunks: AsyncThrowingStream<Data, any Error>.Continuation,
        maxBodyBytes: Int?
    ) {
        exchanges.withLock {
            $0[task.taskIdentifier] = Exchange(head: head, body: body, chunks: chunks, maxBodyBytes: maxBodyBytes)
        }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let http = response as? HTTPURLResponse
        var headers = HeaderFields()
        for (name, value) in http?.allHeaderFields ?? [:] {
            // Both are strings; a cast is cheaper than `String(describing:)`'s conformance lookups.
            headers.append(name.base as? String ?? String(describing: name), value as? String ?? String(describing: value))
        }
        let head = HTTPResponseHead(status: http?.statusCode ?? 0, headers: headers)
        let expected = response.expectedContentLength >= 0 ? Int(response.expectedContentLength) : nil
        let delivery = exchanges.withLock { exchanges -> Delivery? in
            let id = dataTask.taskIdentifier
            guard let exchange = exchanges[id], let continuation = exchange.head else { return nil }
            let transportResponse = TransportResponse(
                head: head, body: exchange.body, expectedLength: expected,
                cancelTransfer: { dataTask.cancelElsewhere() })
            if let expected, expected > 0, expected <= Self.onePieceLimit {
                exchanges[id]?.gathering = Gathering(
                    data: Data(capacity: expected), response: transportResponse)
                return nil
            }
            exchanges[id]?.head = nil
            return Delivery(head: (continuation, .success(transportResponse)), chunks: exchange.chunks)
        }
        delivery?.perform()
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        // An exchange ended for its size, kept alive until its stream has been finished: if its last
        // reference went first (inside the lock, on URLSession's queue), the stream's termination
        // would cancel the task from that queue, which waits for itself.
        var overLimit: Exchange?
        let delivery = exchanges.withLock { exchanges -> Delivery? in
            let id = dataTask.taskIdentifier
            // Read and changed in place, never copied out first: a copy of the exchange would make
            // every append to a gathered body copy the body.
            guard let receivedBefore = exchanges[id]?.receivedBytes else { return nil }
            let received = receivedBefore + data.count
            if let limit = exchanges[id]?.maxBodyBytes, received > limit,
                let removed = exchanges.removeValue(forKey: id)
            {
                overLimit = removed
                return Self.failure(of: removed, HTTPCacheError.bodyTooLarge(limit: limit))
            }
            exchanges[id]?.receivedBytes = received
            if exchanges[id]?.gathering?.data.append(data) != nil { return nil }
            return exchanges[id].map { Delivery(chunk: data, chunks: $0.chunks) }
        }
        delivery?.perform()
        guard overLimit != nil else { return }
        overLimit = nil
        // The completion then finds no exchange.
        dataTask.cancelElsewhere()
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        end(task, error: error)
    }

    #if canImport(FoundationNetworking)
    /// A 401 with a challenge. Foundation on Linux asks once the whole response has arrived, and
    /// without a stored credential it never completes the task (it waits for one), so the load
    /// would hang until its timeout and then be retried. The exchange is over: it is delivered as
    /// it came (the caller sees the 401), and the challenge is cancelled, which ends the task; that
    /// completion then finds no exchange. (Only on Linux: elsewhere challenges, server trust among
    /// them, arrive before the response and keep their default handling.)
    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        end(task, error: nil)
        // Not on this thread: cancelling waits for URLSession's work queue, which may be running
        // this callback (see ``ImmediateDelegateQueue``).
        DispatchQueue.global().async { completionHandler(.cancelAuthenticationChallenge, nil) }
    }
    #endif

    /// The delivery that fails `exchange` (already removed) with `error`: to its head if that still
    /// waits, else to its body stream.
    private static func failure(of exchange: Exchange, _ error: any Error) -> Delivery {
        var delivery = Delivery(end: .failure(error), chunks: exchange.chunks)
        if let continuation = exchange.head { delivery.head = (continuation, .failure(error)) }
        return delivery
    }

    /// Ends `task`'s exchange: head (if still waiting), gathered body and end, or the failure.
    private func end(_ task: URLSessionTask, error: (any Error)?) {
        guard let exchange = exchanges.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        let end: Result<Void, any Error> = error.map { .failure($0) } ?? .success(())
        var delivery = Delivery(end: end, chunks: exchange.chunks)
        if let continuation = exchange.head {
            if let gathering = exchange.gathering, error == nil {
                // The whole exchange, once the transfer is over (so its connection is free for the
                // next request). A body short of its announced length reaches the reader, which judges it.
                var response = gathering.response
                response.completeBody = gathering.data
                delivery.head = (continuation, .success(response))
                if !gathering.data.isEmpty { delivery.chunk = gathering.data }
            } else {
                delivery.head = (continuation, .failure(error ?? URLError(.badServerResponse)))
            }
        }
        delivery.perform()
    }
}
