import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLError {
    /// Failures that may go away by themselves: timeouts, dropped and refused connections.
    var isTransient: Bool {
        [.timedOut, .networkConnectionLost, .cannotConnectToHost, .notConnectedToInternet, .dnsLookupFailed,
         .cannotFindHost, .badServerResponse, .resourceUnavailable, .secureConnectionFailed].contains(code)
    }
}
