import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default transport: URLSession, with every cache of its own switched off.
///
/// Header fidelity is URLSession's: response fields arrive as a dictionary, so repeated lines are
/// merged and their order is lost, and redirects are followed.
///
/// On Linux, URLSession's `URLCache` can answer a request that carries the pipeline's
/// `If-None-Match` from its own store without asking the origin; so the session is ephemeral,
/// has no `urlCache`, and every request says `.reloadIgnoringLocalCacheData`. The body streams
/// through a delegate, so the pipeline can refuse an image by its first bytes.
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession
    private let delegate: StreamingDelegate

    /// Creates a transport with its own session; `maxConnectionsPerHost` is 6 by default.
    public init(maxConnectionsPerHost: Int = 6) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpMaximumConnectionsPerHost = maxConnectionsPerHost
        configuration.httpShouldSetCookies = false
        delegate = StreamingDelegate()
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    deinit {
        session.invalidateAndCancel()
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.head.method
        urlRequest.cachePolicy = .reloadIgnoringLocalCacheData
        urlRequest.timeoutInterval = Double(request.timeout.components.seconds)
            + Double(request.timeout.components.attoseconds) / 1e18
        for field in request.head.headers {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name)
        }
        urlRequest.httpBody = request.body
        let task = session.dataTask(with: urlRequest)
        let (body, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        continuation.onTermination = { termination in
            if case .cancelled = termination { task.cancel() }
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (headContinuation: CheckedContinuation<TransportResponse, any Error>) in
                delegate.register(task, head: headContinuation, body: body, chunks: continuation)
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }
}

/// Routes URLSession's delegate callbacks to each request's head continuation and body stream.
/// State is per task identifier, behind a lock (`Mutex`).
final class StreamingDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private struct Exchange {
        var head: CheckedContinuation<TransportResponse, any Error>?
        let body: AsyncThrowingStream<Data, any Error>
        let chunks: AsyncThrowingStream<Data, any Error>.Continuation
        /// A small body with a known length, gathered here and handed over whole (see `onePieceLimit`).
        var gathered: Data?
        var expectedLength = 0
    }

    /// Bodies announced at this size or less are delivered in one piece. Each chunk handed to the
    /// reading task costs it a wake-up (a thread hop); a 52 KB image came in several. Refusing a
    /// bomb or an HTML page from its first bytes matters for large bodies, not for these.
    static let onePieceLimit = 256 * 1024

    private let exchanges = Mutex<[Int: Exchange]>([:])

    func register(
        _ task: URLSessionTask, head: CheckedContinuation<TransportResponse, any Error>,
        body: AsyncThrowingStream<Data, any Error>, chunks: AsyncThrowingStream<Data, any Error>.Continuation
    ) {
        exchanges.withLock { $0[task.taskIdentifier] = Exchange(head: head, body: body, chunks: chunks) }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let http = response as? HTTPURLResponse
        var headers = HeaderFields()
        for (name, value) in http?.allHeaderFields ?? [:] {
            headers.append(String(describing: name), String(describing: value))
        }
        let head = HTTPResponseHead(status: http?.statusCode ?? 0, headers: headers)
        let expected = response.expectedContentLength >= 0 ? Int(response.expectedContentLength) : nil
        let pending = exchanges.withLock { exchanges -> (CheckedContinuation<TransportResponse, any Error>, AsyncThrowingStream<Data, any Error>)? in
            guard let exchange = exchanges[dataTask.taskIdentifier], let continuation = exchange.head else { return nil }
            exchanges[dataTask.taskIdentifier]?.head = nil
            if let expected, expected > 0, expected <= Self.onePieceLimit {
                exchanges[dataTask.taskIdentifier]?.gathered = Data(capacity: expected)
                exchanges[dataTask.taskIdentifier]?.expectedLength = expected
            }
            return (continuation, exchange.body)
        }
        pending?.0.resume(returning: TransportResponse(head: head, body: pending!.1, expectedLength: expected))
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let delivery = exchanges.withLock { exchanges -> (AsyncThrowingStream<Data, any Error>.Continuation, Data)? in
            let id = dataTask.taskIdentifier
            guard let chunks = exchanges[id]?.chunks else { return nil }
            guard exchanges[id]?.gathered != nil else { return (chunks, data) }
            // Appended in place: a copy of the exchange would make every append copy the body.
            exchanges[id]?.gathered?.append(data)
            guard let gathered = exchanges[id]?.gathered, gathered.count >= exchanges[id]?.expectedLength ?? 0 else {
                return nil
            }
            // Complete (or longer than announced, which the reader then judges): hand it over now.
            exchanges[id]?.gathered = nil
            return (chunks, gathered)
        }
        if let (chunks, data) = delivery { chunks.yield(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let exchange = exchanges.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let head = exchange.head {
            head.resume(throwing: error ?? URLError(.badServerResponse))
        }
        // A body that ended short of its announced length still reaches the reader, which judges it.
        if let gathered = exchange.gathered, !gathered.isEmpty { exchange.chunks.yield(gathered) }
        if let error { exchange.chunks.finish(throwing: error) } else { exchange.chunks.finish() }
    }
}
