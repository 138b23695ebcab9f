import Synchronization

/// A bounded map from keys to values computed from them, for work that repeats per request
/// (parsing and checking a URL, preparing an answer): when full it starts again, since it only
/// saves work and must not grow with the number of distinct URLs seen.
final class Memo<Value: Sendable>: Sendable {
    private let values = Mutex<[String: Value]>([:])
    private let capacity: Int

    init(capacity: Int = 16_384) {
        self.capacity = capacity
    }

    subscript(key: String) -> Value? { values.withLock { $0[key] } }

    func remember(_ value: Value, for key: String) {
        values.withLock { values in
            if values.count >= capacity { values.removeAll(keepingCapacity: true) }
            values[key] = value
        }
    }
}
