import TestSupport
import Testing

@testable import CacheStorage

/// A sweep of left pointers takes them in runs that follow one another in key order, each sorted
/// just before its transaction (`partitionIntoKeyOrderRuns`): together the runs must be exactly
/// the list, in exactly the order a whole sort gives.
@Suite("Digest runs in key order")
struct KeyDigestRunsTests {
    static func digests(_ count: Int, seed: UInt64) -> [KeyDigest] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { _ in KeyDigest(high: random.next(), low: random.next()) }
    }

    @Test("digests compare as their stored bytes do, the order LMDB keeps")
    func orderIsTheBytesOrder() {
        // Pairs that differ only in `low`, and extremes, besides random ones.
        let digests = Self.digests(2_000, seed: 9) + [
            KeyDigest(high: 1, low: .max), KeyDigest(high: 2, low: 0), KeyDigest(high: 2, low: 1),
            KeyDigest(high: 0, low: 0), KeyDigest(high: .max, low: .max),
        ]
        for (a, b) in Array(zip(digests, digests.dropFirst())) + Array(zip(digests, digests.reversed())) {
            #expect((a < b) == a.bytes.lexicographicallyPrecedes(b.bytes), "\(a.hexString) < \(b.hexString)")
        }
    }

    @Test("runs of about the length asked cover the list, one bucket of leading bits each, in key order")
    func runsFollowKeyOrder() {
        let original = Self.digests(50_000, seed: 7)
        var digests = original
        let runs = digests.partitionIntoKeyOrderRuns(runLength: 4_096, by: \.self)
        // 50,000 / 4,096 = 12 runs' worth: 16 buckets of the leading four bits, all filled here.
        #expect(runs.count == 16)
        #expect(runs.first?.lowerBound == 0 && runs.last?.upperBound == original.count)
        #expect(zip(runs, runs.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
        for (bucket, run) in runs.enumerated() {
            #expect(digests[run].allSatisfy { Int($0.high >> 60) == bucket }, "run \(bucket) holds another bucket's digest")
        }
        for run in runs { digests[run].sort() }
        #expect(digests == original.sorted())
    }

    @Test("a list no longer than one run is one run; an empty list none; duplicates stay")
    func shortLists() {
        var empty: [KeyDigest] = []
        #expect(empty.partitionIntoKeyOrderRuns(runLength: 4_096, by: \.self).isEmpty)
        var short = Self.digests(4_096, seed: 8)
        #expect(short.partitionIntoKeyOrderRuns(runLength: 4_096, by: \.self) == [0..<4_096])
        // Under two runs' worth: one bucket, the whole list.
        var underTwo = Self.digests(5_000, seed: 10)
        #expect(underTwo.partitionIntoKeyOrderRuns(runLength: 4_096, by: \.self) == [0..<5_000])
        let twice = Self.digests(3_000, seed: 9)
        var doubled = twice + twice + [KeyDigest(high: 0, low: 0), KeyDigest(high: .max, low: .max)]
        let runs = doubled.partitionIntoKeyOrderRuns(runLength: 1_000, by: \.self)
        // 6,002 / 1,000 = 6 runs' worth: 8 buckets of the leading three bits.
        #expect(runs.count == 8)
        for run in runs { doubled[run].sort() }
        #expect(doubled == (twice + twice + [KeyDigest(high: 0, low: 0), KeyDigest(high: .max, low: .max)]).sorted())
    }
}
