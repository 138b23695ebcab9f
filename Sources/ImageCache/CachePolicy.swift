/// How a request uses the shared caches.
///
/// ```swift
/// ImageRequest(url: url, policy: .withViewCycle)       // nothing shared; the view keeps the bytes
/// ImageRequest(url: url, policy: .duringAppSession)    // memory only, gone when the process ends
/// ImageRequest(url: url, policy: .persistent())        // memory + disk, HTTP freshness, survives relaunch
/// ```
public enum CachePolicy: Sendable, Hashable {
    /// No shared tier is read or written; the bytes live as long as the task or view that loaded them.
    case withViewCycle
    /// The memory tier only, for the life of the process; HTTP freshness is not consulted.
    case duringAppSession
    /// Memory in front of disk, surviving relaunch, fresh as HTTP says unless `override` says otherwise.
    case persistent(FreshnessOverride = .none)
}
