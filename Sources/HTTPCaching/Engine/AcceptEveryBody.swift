import Foundation

/// The acceptor ``HTTPCache/response(for:)`` uses: every body is accepted as it is.
public struct AcceptEveryBody: ResponseBodyAcceptor {
    /// Creates the acceptor.
    public init() {}
}
