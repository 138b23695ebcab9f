import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The seam the pipeline fetches through: ``URLSessionTransport`` by default, or your own.
///
/// An implementation must not cache: ``HTTPCache`` does HTTP caching itself and sends its own
/// conditional headers, which a transport-level cache could answer wrongly. It should pass every
/// response on as it is: any status, header lines in order with repeated names kept.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns once the response head has arrived; the body follows as chunks.
    /// Cancelling the calling task cancels the exchange.
    func send(_ request: TransportRequest) async throws -> TransportResponse

    /// Whether `error`, thrown by ``send(_:)`` or by a response body's stream, may go away if the
    /// request is sent again: a timeout, a dropped or refused connection, a name that did not
    /// resolve. ``HTTPCache`` retries only these (idempotent methods, as its ``RetryPolicy``
    /// allows) and reports them as ``HTTPCacheError/network(_:)`` with
    /// ``NetworkFailure/isTransient`` true. The default recognises `URLError`'s transient codes; a transport that
    /// throws errors of its own says which of them are transient here.
    func isTransient(_ error: any Error) -> Bool
}

extension HTTPTransport {
    /// `URLError`s with a transient code (timed out, connection lost, cannot connect, not
    /// connected, DNS failure, bad server response, resource unavailable, TLS failure); nothing else.
    public func isTransient(_ error: any Error) -> Bool {
        (error as? URLError)?.isTransient ?? false
    }
}

/// A request for a transport: URL, method, headers, body, timeout.
public struct TransportRequest: Sendable, Hashable {
    /// The URL to fetch.
    public var url: URL
    /// Method and headers.
    public var head: HTTPRequestHead
    /// The body to send, for methods that carry one; nil by default.
    public var body: Data?
    /// How long to wait without progress before failing. 30 s by default.
    public var timeout: Duration
    /// The most body bytes to take, counted as delivered (after any `Content-Encoding` is undone);
    /// nil (the default) sets no limit. A transport that honours it stops the transfer as soon as
    /// more arrive, whatever `Content-Length` announced, and fails the exchange with
    /// ``HTTPCacheError/bodyTooLarge(limit:)``: a small compressed body can inflate to gigabytes.
    /// ``HTTPCache`` sets it to ``HTTPCache/Configuration/maxBodyBytes`` and checks again as it reads.
    public var maxBodyBytes: Int?

    /// Creates a request.
    public init(
        url: URL, head: HTTPRequestHead = HTTPRequestHead(), body: Data? = nil, timeout: Duration = .seconds(30),
        maxBodyBytes: Int? = nil
    ) {
        self.url = url
        self.head = head
        self.body = body
        self.timeout = timeout
        self.maxBodyBytes = maxBodyBytes
    }
}

/// A response head and its body, delivered as it arrives.
public struct TransportResponse: Sendable {
    /// Status and headers.
    public var head: HTTPResponseHead
    /// The body's chunks; it throws when the exchange fails midway.
    public var body: AsyncThrowingStream<Data, any Error>
    /// The length the server announced, if any.
    public var expectedLength: Int?
    /// The whole body, when the transport had all of it before handing over the head (``body``
    /// then holds the same bytes): a reader takes it without an asynchronous step per chunk.
    /// Nil (the default) when the body is only in ``body``.
    public var completeBody: Data?
    /// Stops the transfer; called when the reader leaves before the end (a body refused from its
    /// first bytes, or over the size limit). Set it when ending ``body``'s iteration early does not
    /// by itself stop the transfer, or the rest of the body is downloaded for nothing.
    public var cancelTransfer: (@Sendable () -> Void)?

    /// Creates a response.
    public init(
        head: HTTPResponseHead, body: AsyncThrowingStream<Data, any Error>, expectedLength: Int?,
        completeBody: Data? = nil, cancelTransfer: (@Sendable () -> Void)? = nil
    ) {
        self.head = head
        self.body = body
        self.expectedLength = expectedLength
        self.completeBody = completeBody
        self.cancelTransfer = cancelTransfer
    }
}
