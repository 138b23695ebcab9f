import Foundation

/// When and how long to wait before fetching again after a transient failure.
///
/// Transient: timeouts, lost or refused connections, and statuses 408, 429, 500, 502, 503, 504.
/// Delays grow exponentially with full jitter, and a `Retry-After` from the server is honoured up
/// to ``maxDelay``.
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included. 3 by default; 1 disables retrying.
    public var maxAttempts: Int
    /// The first retry waits up to this long. 200 ms by default.
    public var baseDelay: Duration
    /// No wait is longer than this. 5 s by default.
    public var maxDelay: Duration

    /// Creates a policy.
    public init(maxAttempts: Int = 3, baseDelay: Duration = .milliseconds(200), maxDelay: Duration = .seconds(5)) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// Statuses worth retrying.
    public static let transientStatuses: Set<Int> = [408, 429, 500, 502, 503, 504]

    /// The wait before attempt `attempt + 1` (attempt counts from 1), honouring `retryAfter`.
    func delay(afterAttempt attempt: Int, retryAfter: Duration?) -> Duration {
        if let retryAfter { return min(retryAfter, maxDelay) }
        let ceiling = min(baseDelay * (1 << min(attempt - 1, 16)), maxDelay)
        let milliseconds = max(1, ceiling.wholeMilliseconds)
        return .milliseconds(Int64.random(in: (milliseconds / 2)...milliseconds))
    }

    /// A `Retry-After` value (seconds or an HTTP date) as a wait from `now`.
    static func retryAfter(_ value: String?, now: Date) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let seconds = Int(value), seconds >= 0 { return .seconds(seconds) }
        if let date = HTTPDate.parse(value) { return .milliseconds(max(0, Int64(date.timeIntervalSince(now) * 1000))) }
        return nil
    }
}
