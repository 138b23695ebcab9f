import Foundation

/// Why ``AsyncHTTPClientTransport`` would not send a request.
public enum AsyncHTTPClientTransportError: Error, Sendable, CustomStringConvertible {
    /// The URL's scheme is neither `http` nor `https`.
    case unsupportedURL(URL)

    /// What went wrong and what to do about it.
    public var description: String {
        switch self {
        case let .unsupportedURL(url):
            "\(url.absoluteString) is not an http or https URL; AsyncHTTPClientTransport fetches only those."
        }
    }
}
