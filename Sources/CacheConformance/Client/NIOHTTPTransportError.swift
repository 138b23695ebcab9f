import Foundation

/// Why the NIO transport failed.
package enum NIOHTTPTransportError: Error, Sendable, CustomStringConvertible {
    /// Only plain `http://` URLs with a host are supported.
    case unsupportedURL(URL)
    /// The connection closed before the response was complete.
    case connectionClosed
    /// Nothing arrived for longer than the request's timeout.
    case timedOut

    package var description: String {
        switch self {
        case let .unsupportedURL(url): "\(url) is not a plain http:// URL; the NIO transport supports only those."
        case .connectionClosed: "The server closed the connection before the response was complete; check the server."
        case .timedOut: "The server sent nothing within the request's timeout; raise the timeout or check the server."
        }
    }
}
