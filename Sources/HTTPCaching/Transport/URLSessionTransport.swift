import CacheStorage
import Foundation
import Synchronization

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
/// through a delegate, so the pipeline can refuse an image by its first bytes; on Linux the
/// delegate's calls run as they are made (`ImmediateDelegateQueue`).
///
/// URLSession undoes `Content-Encoding` itself, so a body's size is known only as it is inflated:
/// the delegate counts the bytes it delivers and cancels the transfer once they pass the request's
/// ``TransportRequest/maxBodyBytes``, failing it with ``HTTPCacheError/bodyTooLarge(limit:)``.
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
        #if canImport(FoundationNetworking)
        let delegateQueue: OperationQueue? = ImmediateDelegateQueue()
        #else
        let delegateQueue: OperationQueue? = nil
        #endif
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: delegateQueue)
    }

    deinit {
        // Not on the releasing thread: Foundation's invalidation waits (dispatch_sync) for the
        // session's queue, which may at that moment be delivering a body into a task this thread
        // must run, and a transport's last release often happens on the cooperative pool.
        let session = session
        DispatchQueue.global(qos: .utility).async { session.invalidateAndCancel() }
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.head.method
        urlRequest.cachePolicy = .reloadIgnoringLocalCacheData
        urlRequest.timeoutInterval = request.timeout.seconds
        for field in request.head.headers {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name)
        }
        urlRequest.httpBody = request.body
        let task = session.dataTask(with: urlRequest)
        let (body, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        continuation.onTermination = { termination in
            if case .cancelled = termination { task.cancelElsewhere() }
        }
        let start = Mutex(TaskStart.pending)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (headContinuation: CheckedContinuation<TransportResponse, any Error>) in
                guard start.withLock({ $0.begin() }) else {
                    headContinuation.resume(throwing: CancellationError())
                    return
                }
                delegate.register(
                    task, head: headContinuation, body: body, chunks: continuation, maxBodyBytes: request.maxBodyBytes)
                task.resume()
                if start.withLock({ $0.finishStarting() }) { task.cancelElsewhere() }
            }
        } onCancel: {
            if start.withLock({ $0.cancel() }) { task.cancelElsewhere() }
        }
    }

    /// Where a data task is on its way to starting, so that a cancellation is sent only after
    /// `resume()`: on Linux a task cancelled before it was resumed is never started and never
    /// completes, so nothing would ever answer the request's continuation. A cancellation that
    /// comes first (a task already cancelled when it sends) ends the request before it starts;
    /// one that comes while it starts is sent once `resume()` has returned.
    private enum TaskStart {
        case pending, starting, cancelledWhileStarting, started, cancelled

        /// Whether the task may start: not when it was cancelled first.
        mutating func begin() -> Bool {
            guard self == .pending else { return false }
            self = .starting
            return true
        }

        /// The task was resumed; whether a cancellation came meanwhile and is now to be sent.
        mutating func finishStarting() -> Bool {
            let cancelled = self == .cancelledWhileStarting
            self = .started
            return cancelled
        }

        /// A cancellation; whether to send it to the task now.
        mutating func cancel() -> Bool {
            switch self {
            case .pending:
                self = .cancelled
                return false
            case .starting:
                self = .cancelledWhileStarting
                return false
            case .started:
                return true
            case .cancelledWhileStarting, .cancelled:
                return false
            }
        }
    }
}
