import Synchronization

/// A bounded map from keys to values computed from them, for work that repeats per request
/// (parsing and checking a URL, preparing an answer). Bounded by a total cost (each value's,
/// as the caller counts it): when full it starts again, since it only saves work and must not
/// grow with the number of distinct URLs seen or the size of what they hold.
final class Memo<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct State {
        var values: [Key: (value: Value, cost: Int)] = [:]
        var totalCost = 0
    }

    private let state = Mutex(State())
    private let costLimit: Int

    /// A memo holding values of at most `costLimit` in all.
    init(costLimit: Int) {
        self.costLimit = costLimit
    }

    subscript(key: Key) -> Value? { state.withLock { $0.values[key]?.value } }

    func remember(_ value: Value, for key: Key, cost: Int) {
        guard cost <= costLimit else { return }
        state.withLock { state in
            if state.totalCost + cost > costLimit {
                state.values.removeAll(keepingCapacity: true)
                state.totalCost = 0
            }
            state.totalCost += cost - (state.values[key]?.cost ?? 0)
            state.values[key] = (value, cost)
        }
    }
}
