import Foundation

/// The standard "feed" workload: entry sizes, keys and a Zipf read sequence, all from one seed.
///
/// Sizes (feed): 60 % log-uniform in 8–40 KiB, 30 % in 40–200 KiB, 10 % in 200 KiB–1 MiB (mean ≈ 93 KB).
/// Reads: Zipf(s = 1.0) over a seeded random permutation of the keys.
struct FeedWorkload {
    enum Sizes: String, CaseIterable {
        /// The mix above.
        case feed
        /// 1–4 KiB, to measure opening a store with many entries without writing gigabytes.
        case tiny
        /// 4–40 KiB log-uniform: downsampled images, what a thumbnail cache holds.
        case thumbs
        /// Every entry 4 KiB: with `fixed100k`, reads whose cost per byte can be compared.
        case fixed4k = "4k"
        /// Every entry 100 KiB.
        case fixed100k = "100k"
    }

    let sizes: [Int]
    private var random: SeededRandom
    private let pool: [UInt8]

    init(entries: Int, sizes kind: Sizes, seed: UInt64) {
        var random = SeededRandom(seed: seed)
        sizes = (0..<entries).map { _ in Self.size(kind, &random) }
        // Entry bytes are slices of a random pool at random offsets: incompressible, cheap to make.
        pool = (0..<(2 << 20)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        self.random = random
    }

    static func key(_ number: Int) -> String { "https://cdn.example.com/img/\(number).jpg" }

    var totalBytes: Int { sizes.reduce(0, +) }

    mutating func bytes(count: Int) -> Data {
        var data = Data(capacity: count)
        while data.count < count {
            let start = Int(random.next() % UInt64(pool.count))
            let take = min(count - data.count, pool.count - start)
            data.append(contentsOf: pool[start..<(start + take)])
        }
        return data
    }

    /// `count` key numbers drawn by Zipf(s = 1.0) rank over a seeded permutation of the keys.
    mutating func zipfReads(count: Int) -> [Int] {
        let entries = sizes.count
        var permutation = Array(0..<entries)
        for index in stride(from: entries - 1, to: 0, by: -1) {
            permutation.swapAt(index, Int(random.next() % UInt64(index + 1)))
        }
        var cumulative = [Double](repeating: 0, count: entries)
        var sum = 0.0
        for rank in 0..<entries {
            sum += 1.0 / Double(rank + 1)
            cumulative[rank] = sum
        }
        return (0..<count).map { _ in
            let target = Double(random.next() >> 11) / Double(1 << 53) * sum
            var low = 0
            var high = entries - 1
            while low < high {
                let middle = (low + high) / 2
                if cumulative[middle] < target { low = middle + 1 } else { high = middle }
            }
            return permutation[low]
        }
    }

    private static func size(_ kind: Sizes, _ random: inout SeededRandom) -> Int {
        func logUniform(_ low: Double, _ high: Double) -> Int {
            Int(exp(log(low) + (log(high) - log(low)) * random.unit()))
        }
        switch kind {
        case .tiny:
            return logUniform(1024, 4096)
        case .thumbs:
            return logUniform(4 * 1024, 40 * 1024)
        case .fixed4k:
            return 4 * 1024
        case .fixed100k:
            return 100 * 1024
        case .feed:
            let bucket = random.unit()
            if bucket < 0.6 { return logUniform(8 * 1024, 40 * 1024) }
            if bucket < 0.9 { return logUniform(40 * 1024, 200 * 1024) }
            return logUniform(200 * 1024, 1024 * 1024)
        }
    }
}

/// SplitMix64: small, fast and repeatable for a given seed.
struct SeededRandom {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// Uniform in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
