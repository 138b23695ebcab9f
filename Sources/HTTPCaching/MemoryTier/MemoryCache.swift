import Foundation

/// A thread-safe, cost- and count-limited least-recently-used cache: the memory tier.
///
/// Every operation is O(1). Inserting past a limit evicts the least recently used entries; an
/// entry costing more than ``maxEntryCostFraction`` of ``costLimit`` is not kept at all, so one
/// huge image cannot flush everything else.
///
/// ```swift
/// let cache = MemoryCache<String, Data>(costLimit: 64 * 1024 * 1024)
/// cache.set(bytes, for: url.absoluteString, cost: width * height * 4)
/// let hit = cache.value(for: url.absoluteString)
/// ```
public final class MemoryCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// The total cost the cache keeps. By default a quarter of physical memory, at most 512 MiB.
    public let costLimit: Int
    /// The most entries the cache keeps. 1,000 by default.
    public let countLimit: Int
    /// The largest share of ``costLimit`` one entry may take. 0.25 by default.
    public let maxEntryCostFraction: Double

    @usableFromInline let list: Mutex<LRUList<Key, Value>>

    /// The default cost limit: a quarter of physical memory, at most 512 MiB.
    public static var defaultCostLimit: Int {
        Int(min(ProcessInfo.processInfo.physicalMemory / 4, 512 * 1024 * 1024))
    }

    /// Creates an empty cache.
    public init(costLimit: Int = MemoryCache.defaultCostLimit, countLimit: Int = 1000, maxEntryCostFraction: Double = 0.25) {
        self.costLimit = max(0, costLimit)
        self.countLimit = max(0, countLimit)
        self.maxEntryCostFraction = maxEntryCostFraction
        list = Mutex(LRUList())
    }

    /// The value for `key`, marking it most recently used.
    @inlinable public func value(for key: Key) -> Value? {
        list.withLock { $0.value(for: key) }
    }

    /// Whether `key` is cached, without marking it used.
    @inlinable public func contains(_ key: Key) -> Bool {
        list.withLock { $0.contains(key) }
    }

    /// Stores `value` under `key` at `cost` (what keeping it holds, in bytes).
    /// - Returns: false when the entry was too costly to keep (any older value for `key` is removed).
    @discardableResult
    @inlinable public func set(_ value: Value, for key: Key, cost: Int) -> Bool {
        let cost = max(0, cost)
        guard Double(cost) <= Double(costLimit) * maxEntryCostFraction, countLimit > 0 else {
            _ = list.withLock { $0.remove(key) }
            return false
        }
        // Evicted values are released after the lock is dropped: a deinit must not run under it.
        let evicted: [Value] = list.withLock { list in
            list.set(value, for: key, cost: cost)
            return Self.evictPastLimits(&list, costLimit: costLimit, countLimit: countLimit)
        }
        _ = evicted
        return true
    }

    /// Replaces the value for `key` with what `transform` makes of it, under the cache's lock, so
    /// that a value stored for `key` meanwhile is never overwritten by one made from the value it
    /// replaced. `transform` returns nil to leave the value as it is; it runs under the lock.
    /// - Returns: whether the value was replaced; false, the value left as it was, when there is
    ///   none, `transform` returned nil, or the new one costs more than one entry may.
    @discardableResult
    @inlinable public func replaceValue(for key: Key, _ transform: (Value) -> (value: Value, cost: Int)?) -> Bool {
        let (replaced, evicted): (Bool, [Value]) = list.withLock { list in
            guard let current = list.value(for: key), let (value, asked) = transform(current) else { return (false, []) }
            let cost = max(0, asked)
            guard Double(cost) <= Double(costLimit) * maxEntryCostFraction else { return (false, [value]) }
            list.set(value, for: key, cost: cost)
            return (true, [current] + Self.evictPastLimits(&list, costLimit: costLimit, countLimit: countLimit))
        }
        _ = evicted
        return replaced
    }

    /// Removes least recently used entries while `list` is past either limit, returning them to be
    /// released once the lock is dropped.
    @inlinable static func evictPastLimits(_ list: inout LRUList<Key, Value>, costLimit: Int, countLimit: Int) -> [Value] {
        var evicted: [Value] = []
        while list.totalCost > costLimit || list.count > countLimit, let (_, old) = list.removeLeastRecentlyUsed() {
            evicted.append(old)
        }
        return evicted
    }

    /// Removes the value for `key`, returning it.
    @discardableResult
    @inlinable public func removeValue(for key: Key) -> Value? {
        list.withLock { $0.remove(key) }
    }

    /// Removes everything.
    @inlinable public func removeAll() {
        list.withLock { $0.removeAll() }
    }

    /// Removes least recently used entries until the summed cost is at most `cost`: what a memory
    /// warning asks for.
    @inlinable public func trim(toCost cost: Int) {
        // Released after the lock is dropped, as in `set`.
        let evicted: [Value] = list.withLock { list in
            var evicted: [Value] = []
            while list.totalCost > max(0, cost), let (_, old) = list.removeLeastRecentlyUsed() { evicted.append(old) }
            return evicted
        }
        _ = evicted
    }

    /// Entries currently cached.
    @inlinable public var count: Int { list.withLock { $0.count } }

    /// The summed cost of the cached entries.
    @inlinable public var totalCost: Int { list.withLock { $0.totalCost } }
}
