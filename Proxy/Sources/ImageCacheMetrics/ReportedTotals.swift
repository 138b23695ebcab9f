import Foundation
import Synchronization

/// The cumulative totals last reported, so that each report adds only what is new to a counter:
/// the store and the pipeline count from their start, swift-metrics counters only go up by increments.
final class ReportedTotals: Sendable {
    struct Values: Sendable {
        var hits = 0
        var misses = 0
        var failures: [String: Int] = [:]
    }

    private let last = Mutex(Values())

    /// What `now` adds to the last report (a total that went down, a reopened store, counts from zero).
    func advance(to now: Values) -> Values {
        last.withLock { last in
            defer { last = now }
            func delta(_ new: Int, _ old: Int) -> Int { new >= old ? new - old : new }
            var increments = Values(hits: delta(now.hits, last.hits), misses: delta(now.misses, last.misses))
            for (cause, count) in now.failures { increments.failures[cause] = delta(count, last.failures[cause] ?? 0) }
            return increments
        }
    }
}
