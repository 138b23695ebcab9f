import Foundation
import NIOConcurrencyHelpers

/// One test's time: it starts at a whole second and moves only when the test's script pauses (or
/// its origin is told to wait before answering). The cache and the origin both read it, so a
/// `max-age=2` response is exactly as old at the next request as the script says, however long the
/// machine took to get there, and a pause costs no real time.
package final class ReplayClock: Sendable {
    private let current: NIOLockedValueBox<Date>

    /// A clock at the whole second before the real time now.
    package init() {
        current = NIOLockedValueBox(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
    }

    /// The replayed time.
    package func now() -> Date {
        current.withLockedValue { $0 }
    }

    /// Moves the clock `seconds` forward.
    package func advance(by seconds: Double) {
        current.withLockedValue { $0.addTimeInterval(seconds) }
    }
}
