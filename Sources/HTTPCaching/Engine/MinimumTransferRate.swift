/// The slowest a response may arrive: fewer bytes than this in any whole window after its head
/// ends the exchange with ``FetchBoundExceeded/tooSlow(receivedBytes:window:minimum:)``.
///
/// A window rather than an instant rate, so that a pause on a healthy link is not a failure;
/// the windows start when the response head arrives, and a body that completes within a window
/// is never judged by it.
public struct MinimumTransferRate: Sendable, Hashable, CustomStringConvertible {
    /// The fewest bytes per second, averaged over ``window``.
    public var bytesPerSecond: Int
    /// How long each measurement lasts. 10 s by default.
    public var window: Duration

    /// A rate of `bytesPerSecond`, measured over windows of `window`.
    public init(bytesPerSecond: Int, window: Duration = .seconds(10)) {
        self.bytesPerSecond = max(0, bytesPerSecond)
        self.window = max(window, .milliseconds(1))
    }

    /// 1 KiB/s over 10 s windows: far below any working link, far above a body dribbled to hold
    /// a connection open.
    public static let `default` = MinimumTransferRate(bytesPerSecond: 1024)

    /// The bytes a window must see.
    var bytesPerWindow: Int {
        let (seconds, attoseconds) = window.components
        return Int((Double(seconds) + Double(attoseconds) / 1e18) * Double(bytesPerSecond))
    }

    /// "1024 bytes/s over 10 seconds".
    public var description: String { "\(bytesPerSecond) bytes/s over \(window)" }
}
