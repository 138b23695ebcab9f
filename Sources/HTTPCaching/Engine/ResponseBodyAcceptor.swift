import Foundation

/// The hook through which a caller vets a response body as it arrives, before ``HTTPCache``
/// returns or stores it.
///
/// The cache calls ``accept(_:)`` once the head has arrived, ``inspectPrefix(_:of:)`` with the first
/// bytes and again each time the body received has doubled, until it answers
/// ``BodyPrefixVerdict/sufficient`` (so all its looks together cost less than twice the body), and
/// ``finish(_:of:)`` with the whole body. Throwing from any of them refuses the response: the transfer is cancelled, nothing is
/// stored, and the error reaches the caller as ``HTTPCacheError/refused(_:)``. Only responses read
/// from the network are vetted; stored bodies were vetted when they were stored.
///
/// ```swift
/// struct OnlyJSON: ResponseBodyAcceptor {
///     func accept(_ head: HTTPResponseHead) throws {
///         guard head.headers["Content-Type"]?.hasPrefix("application/json") == true else { throw NotJSON() }
///     }
/// }
/// ```
public protocol ResponseBodyAcceptor: Sendable {
    /// Decides from the head whether the body is worth reading. The default accepts every head.
    func accept(_ head: HTTPResponseHead) throws

    /// Looks at the body received so far; answer ``BodyPrefixVerdict/needMoreBytes`` to look again
    /// once twice as much has arrived. The default is satisfied at once.
    func inspectPrefix(_ prefix: Data, of head: HTTPResponseHead) throws -> BodyPrefixVerdict

    /// Checks the complete body and describes it for storage. The default describes nothing.
    func finish(_ body: Data, of head: HTTPResponseHead) throws -> BodyDescription
}

extension ResponseBodyAcceptor {
    /// Accepts every head.
    public func accept(_ head: HTTPResponseHead) throws {}

    /// Is satisfied without looking.
    public func inspectPrefix(_ prefix: Data, of head: HTTPResponseHead) throws -> BodyPrefixVerdict { .sufficient }

    /// Accepts the body and describes nothing.
    public func finish(_ body: Data, of head: HTTPResponseHead) throws -> BodyDescription { BodyDescription() }
}
