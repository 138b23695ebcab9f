import Foundation
import Testing

import ImageCache

@Suite("MemoryCache")
struct MemoryCacheTests {
    @Test("keeps the most recently used entries within the cost limit")
    func costLimit() {
        let cache = MemoryCache<String, Int>(costLimit: 100, countLimit: 100, maxEntryCostFraction: 1)
        for number in 0..<10 { cache.set(number, for: "k\(number)", cost: 10) }
        #expect(cache.totalCost == 100)
        _ = cache.value(for: "k0")  // k0 becomes the most recent; k1 is now the oldest
        cache.set(10, for: "k10", cost: 25)
        #expect(cache.value(for: "k0") == 0)
        #expect(cache.value(for: "k1") == nil)
        #expect(cache.value(for: "k2") == nil)
        #expect(cache.value(for: "k3") == nil)
        #expect(cache.value(for: "k4") == 4)
        #expect(cache.totalCost <= 100)
    }

    @Test("keeps at most countLimit entries, evicting the least recently used")
    func countLimit() {
        let cache = MemoryCache<Int, Int>(costLimit: 1_000_000, countLimit: 3)
        for number in 0..<5 { cache.set(number, for: number, cost: 1) }
        #expect(cache.count == 3)
        #expect(!cache.contains(0))
        #expect(!cache.contains(1))
        #expect(cache.contains(4))
    }

    @Test("refuses an entry costlier than its fraction of the limit, dropping any older value")
    func oversizedEntry() {
        let cache = MemoryCache<String, Int>(costLimit: 100, countLimit: 10, maxEntryCostFraction: 0.25)
        #expect(cache.set(1, for: "a", cost: 25))
        #expect(!cache.set(2, for: "a", cost: 26))
        #expect(cache.value(for: "a") == nil)
        #expect(cache.totalCost == 0)
    }

    @Test("replacing a key updates its cost; remove and removeAll empty it")
    func replaceAndRemove() {
        let cache = MemoryCache<String, Int>(costLimit: 100, countLimit: 10, maxEntryCostFraction: 1)
        cache.set(1, for: "a", cost: 10)
        cache.set(2, for: "a", cost: 30)
        #expect(cache.totalCost == 30)
        #expect(cache.count == 1)
        #expect(cache.removeValue(for: "a") == 2)
        #expect(cache.totalCost == 0)
        cache.set(3, for: "b", cost: 5)
        cache.removeAll()
        #expect(cache.count == 0)
        #expect(cache.value(for: "b") == nil)
    }

    @Test("many tasks at once keep the limits and never lose track of cost")
    func concurrentUse() async {
        let cache = MemoryCache<Int, Int>(costLimit: 5_000, countLimit: 200, maxEntryCostFraction: 1)
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for step in 0..<5_000 {
                        let key = (task * 7 + step) % 400
                        switch step % 4 {
                        case 0, 1: cache.set(key, for: key, cost: 1 + key % 50)
                        case 2: _ = cache.value(for: key)
                        default: cache.removeValue(for: key)
                        }
                    }
                }
            }
        }
        #expect(cache.count <= 200)
        #expect(cache.totalCost <= 5_000)
        var summed = 0
        for key in 0..<400 where cache.contains(key) { summed += 1 + key % 50 }
        #expect(summed == cache.totalCost)
    }
}
