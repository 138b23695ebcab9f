import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Why the origin could not answer: a sentence, whether trying again later may help, and the
/// transport's own error, kept so a caller can look at it (a `URLError`'s code, say).
public struct NetworkFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// What the transport said.
    public var message: String
    /// Whether the failure may go away by itself (the transport's ``HTTPTransport/isTransient(_:)``).
    public var isTransient: Bool
    /// The error the transport threw.
    public var underlying: any Error

    /// A failure with its cause.
    public init(message: String, isTransient: Bool, underlying: any Error) {
        self.message = message
        self.isTransient = isTransient
        self.underlying = underlying
    }

    /// The `URLError` code, when the transport was URLSession's.
    public var urlErrorCode: URLError.Code? { (underlying as? URLError)?.code }

    /// The sentence, and what to do.
    public var description: String {
        "\(message)" + (isTransient ? "; try again later." : "; check the URL and connectivity.")
    }

    /// Equal when the sentence and the transience are (the underlying errors need not be `Equatable`).
    public static func == (lhs: NetworkFailure, rhs: NetworkFailure) -> Bool {
        lhs.message == rhs.message && lhs.isTransient == rhs.isTransient
    }
}
