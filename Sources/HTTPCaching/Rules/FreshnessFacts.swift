import Foundation

/// A stored response's freshness lifetime and its corrected age on arrival (RFC 9111 §4.2.1,
/// §4.2.3), each parsed from its headers once: everything needed to tell whether it is fresh at
/// any instant, when it expires, and its `Age` when served.
///
/// Current age grows one-for-one from `responseTime`, starting at the corrected initial age, so
/// these answers agree exactly with computing age and lifetime afresh at each instant.
package struct FreshnessFacts: Sendable, Hashable {
    /// The freshness lifetime in seconds, with any override applied.
    let lifetime: Double
    /// The corrected initial age in seconds: the age at `responseTime`.
    let ageAtReceipt: Double
    /// When the response was received.
    let responseTime: Date

    /// The current age at `now`, in seconds.
    package func age(at now: Date) -> Double {
        ageAtReceipt + max(0, now.timeIntervalSince(responseTime))
    }

    /// Whether the lifetime exceeds the age at `now`.
    package func isFresh(at now: Date) -> Bool {
        lifetime > age(at: now)
    }

    /// The instant the response becomes stale; nil when it never does.
    package var expirationDate: Date? {
        guard lifetime < HTTPSeconds.maximum else { return nil }
        return responseTime.addingTimeInterval(lifetime - ageAtReceipt)
    }
}
