import Foundation

/// A body written a piece at a time, as a slow link or a large file arrives, so that a client
/// that stops reading early is seen to (``LoopbackOrigin/deliveries``).
public struct BodyPacing: Sendable, Hashable {
    /// Bytes per piece.
    public var chunkBytes: Int
    /// The pause after each piece.
    public var interval: Duration

    /// Creates a pacing.
    public init(chunkBytes: Int, interval: Duration) {
        self.chunkBytes = chunkBytes
        self.interval = interval
    }
}
