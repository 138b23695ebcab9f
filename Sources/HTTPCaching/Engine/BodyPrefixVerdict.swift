import Foundation

/// What ``ResponseBodyAcceptor/inspectPrefix(_:of:)`` concluded from the bytes so far.
public enum BodyPrefixVerdict: Sendable, Hashable {
    /// Call again when more bytes have arrived.
    case needMoreBytes
    /// The prefix settles it: no more calls until ``ResponseBodyAcceptor/finish(_:of:)``.
    case sufficient
}
