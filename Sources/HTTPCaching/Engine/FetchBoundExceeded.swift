/// Why an exchange with an origin was ended by the cache rather than by the origin: it ran past
/// ``HTTPCache/Configuration/fetchDeadline`` or arrived slower than
/// ``HTTPCache/Configuration/minimumTransferRate``.
///
/// It reaches callers as ``HTTPCacheError/network(_:)``, with this as the failure's
/// ``NetworkFailure/underlying`` and ``NetworkFailure/isTransient`` false: the origin failed to
/// answer in time, so a stored response may stand in where its headers allow, and the exchange
/// is not retried (a retry would only hold the fetch slot longer).
public enum FetchBoundExceeded: Error, Sendable, Hashable, CustomStringConvertible {
    /// The exchange, retries included, was still going when its deadline passed.
    case deadline(Duration)
    /// A whole window after the head brought fewer bytes than the minimum rate asks.
    case tooSlow(receivedBytes: Int, window: Duration, minimum: MinimumTransferRate)

    /// What happened, and what to do about it.
    public var description: String {
        switch self {
        case let .deadline(deadline):
            "The origin did not finish its response within the \(deadline) fetch deadline; the exchange was ended. Raise fetchDeadline if the origin is slow but legitimate."
        case let .tooSlow(received, window, minimum):
            "The origin sent \(received) bytes in \(window), below the minimum transfer rate of \(minimum); the exchange was ended. Lower minimumTransferRate if the origin is slow but legitimate."
        }
    }
}
