import Foundation

/// A body written a piece at a time, as a slow link or a large file arrives, so that a client
/// that stops reading early is seen to (``LoopbackOrigin/deliveries``).
public struct BodyPacing: Sendable, Hashable {
    /// Bytes per piece.
    public var chunkBytes: Int
    /// The pause after each piece.
    public var interval: Duration
    /// Once this many bytes are written, wait for the client to close the connection (up to
    /// ``holdLimit``) before writing on: a client that stops early is then seen to have stopped
    /// there, however slowly it got round to it. Nil (the default) never waits.
    public var holdAfterBytes: Int?
    /// The longest the hold waits before writing the rest.
    public var holdLimit: Duration

    /// Creates a pacing.
    public init(chunkBytes: Int, interval: Duration, holdAfterBytes: Int? = nil, holdLimit: Duration = .seconds(60)) {
        self.chunkBytes = chunkBytes
        self.interval = interval
        self.holdAfterBytes = holdAfterBytes
        self.holdLimit = holdLimit
    }
}
