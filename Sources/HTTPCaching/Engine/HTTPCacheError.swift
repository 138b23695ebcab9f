import CacheStorage
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Why ``HTTPCache`` could not answer, with a sentence that says what to do about it.
public enum HTTPCacheError: Error, Sendable, CustomStringConvertible, LocalizedError {
    /// The origin could not be reached or the exchange broke off; the failure says whether trying
    /// again later may help and keeps the transport's error. No stored response was allowed to stand in.
    case network(NetworkFailure)
    /// The body is larger than ``HTTPCache/Configuration/maxBodyBytes``.
    case bodyTooLarge(limit: Int)
    /// The request's ``ResponseBodyAcceptor`` refused the response with this error; nothing was stored.
    case refused(any Error)
    /// The request may not use the network (``HTTPCacheRequest/Mode/onlyIfCached`` or
    /// `Cache-Control: only-if-cached`) and nothing usable is stored for this URL.
    case notCached(URL)
    /// The disk tier failed, with the store's error.
    case storage(StorageError)
    /// The request was cancelled.
    case cancelled

    /// What went wrong and what to do about it.
    public var description: String {
        switch self {
        case let .network(failure):
            "The origin could not be reached: \(failure)"
        case let .bodyTooLarge(limit):
            "The body is larger than the \(limit)-byte limit; raise maxBodyBytes to accept it."
        case let .refused(reason):
            "The response was refused: \(reason)"
        case let .notCached(url):
            "\(url.absoluteString) is not cached and this request may not use the network; allow the network or load it first."
        case let .storage(error):
            "The disk cache failed: \(error); check the store's folder, or run without a store."
        case .cancelled:
            "The request was cancelled."
        }
    }

    /// The same sentence as ``description``.
    public var errorDescription: String? { description }

    /// Any error met while answering a request, as the cache reports it; `transport` says
    /// whether a failure of its own is transient.
    init(_ error: any Error, transport: any HTTPTransport) {
        switch error {
        case let error as HTTPCacheError: self = error
        case is CancellationError: self = .cancelled
        case let error as StorageError: self = .storage(error)
        case let error as FetchBoundExceeded:
            self = .network(NetworkFailure(message: error.description, isTransient: false, underlying: error))
        case let error as URLError where error.code == .cancelled: self = .cancelled
        case let error as URLError:
            self = .network(NetworkFailure(message: error.localizedDescription, isTransient: transport.isTransient(error), underlying: error))
        default: self = .network(NetworkFailure(message: "\(error)", isTransient: transport.isTransient(error), underlying: error))
        }
    }
}
