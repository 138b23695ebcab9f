/// The storage behind ``MemoryCache``: a dictionary from key to slot, and a doubly linked list of
/// slots threaded through one array by index, most recently used at the head.
///
/// Indices instead of node objects keep lookups and moves free of reference counting and
/// allocation, which would otherwise be most of a hit. Not thread-safe: the cache owns it behind
/// a lock.
///
/// Inlinable (as ``MemoryCache``'s operations are) so that a cache used from another module is
/// specialised for its key and value types there, rather than running every hit through generic
/// code.
@usableFromInline
struct LRUList<Key: Hashable, Value> {
    @usableFromInline
    struct Slot {
        @usableFromInline var key: Key?
        @usableFromInline var value: Value?
        @usableFromInline var cost: Int
        @usableFromInline var previous: Int32
        @usableFromInline var next: Int32

        @inlinable
        init(key: Key?, value: Value?, cost: Int, previous: Int32, next: Int32) {
            self.key = key
            self.value = value
            self.cost = cost
            self.previous = previous
            self.next = next
        }
    }

    @inlinable static var none: Int32 { -1 }

    @usableFromInline var slots: [Slot] = []
    @usableFromInline var freeSlots: [Int32] = []
    @usableFromInline var index: [Key: Int32] = [:]
    @usableFromInline var head: Int32 = none
    @usableFromInline var tail: Int32 = none
    @usableFromInline var totalCost = 0

    @usableFromInline init() {}

    @inlinable var count: Int { index.count }

    /// The value for `key`, moved to the front.
    @inlinable mutating func value(for key: Key) -> Value? {
        guard let position = index[key] else { return nil }
        moveToFront(position)
        return slots[Int(position)].value
    }

    /// Whether `key` is present, without changing the order.
    @inlinable func contains(_ key: Key) -> Bool { index[key] != nil }

    /// Inserts or replaces `key` at the front.
    @inlinable mutating func set(_ value: Value, for key: Key, cost: Int) {
        if let position = index[key] {
            totalCost += cost - slots[Int(position)].cost
            slots[Int(position)].value = value
            slots[Int(position)].cost = cost
            moveToFront(position)
            return
        }
        let slot = Slot(key: key, value: value, cost: cost, previous: Self.none, next: head)
        let position: Int32
        if let reused = freeSlots.popLast() {
            position = reused
            slots[Int(reused)] = slot
        } else {
            position = Int32(slots.count)
            slots.append(slot)
        }
        if head != Self.none { slots[Int(head)].previous = position }
        head = position
        if tail == Self.none { tail = position }
        index[key] = position
        totalCost += cost
    }

    /// Removes `key`; returns its value.
    @discardableResult
    @inlinable mutating func remove(_ key: Key) -> Value? {
        guard let position = index.removeValue(forKey: key) else { return nil }
        return release(position)
    }

    /// Removes and returns the least recently used entry.
    @inlinable mutating func removeLeastRecentlyUsed() -> (key: Key, value: Value)? {
        guard tail != Self.none, let key = slots[Int(tail)].key else { return nil }
        index[key] = nil
        guard let value = release(tail) else { return nil }
        return (key, value)
    }

    @inlinable mutating func removeAll() {
        slots.removeAll()
        freeSlots.removeAll()
        index.removeAll()
        head = Self.none
        tail = Self.none
        totalCost = 0
    }

    @inlinable mutating func release(_ position: Int32) -> Value? {
        unlink(position)
        let value = slots[Int(position)].value
        totalCost -= slots[Int(position)].cost
        slots[Int(position)] = Slot(key: nil, value: nil, cost: 0, previous: Self.none, next: Self.none)
        freeSlots.append(position)
        return value
    }

    @inlinable mutating func moveToFront(_ position: Int32) {
        guard position != head else { return }
        unlink(position)
        slots[Int(position)].previous = Self.none
        slots[Int(position)].next = head
        if head != Self.none { slots[Int(head)].previous = position }
        head = position
        if tail == Self.none { tail = position }
    }

    @inlinable mutating func unlink(_ position: Int32) {
        let previous = slots[Int(position)].previous
        let next = slots[Int(position)].next
        if previous != Self.none { slots[Int(previous)].next = next } else { head = next }
        if next != Self.none { slots[Int(next)].previous = previous } else { tail = previous }
    }
}

extension LRUList: Sendable where Key: Sendable, Value: Sendable {}
extension LRUList.Slot: Sendable where Key: Sendable, Value: Sendable {}
