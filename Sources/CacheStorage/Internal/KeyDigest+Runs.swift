extension Array {
    /// Reorders the elements in place into runs of about `runLength` that follow one another in
    /// the order of their digests (`digest`; by leading bits, each run itself unsorted) and returns
    /// the runs' ranges.
    ///
    /// For a sweep that sorts each run just before the transaction that takes it (see
    /// `StoreCore.deleteStalePointers`): sorting a whole sweep's left pointers up front took longer
    /// on the writer than an eviction slice, for a put queued meanwhile to wait out; this pass is
    /// linear, and each run sorts in a small fraction of a slice.
    mutating func partitionIntoKeyOrderRuns(runLength: Int, by digest: (Element) -> KeyDigest) -> [Range<Int>] {
        guard count > runLength, runLength > 0 else { return isEmpty ? [] : [indices] }
        // A power of two of buckets, so a bucket is the digest's leading bits.
        let bits = Swift.min(16, Int.bitWidth - (count / runLength - 1).leadingZeroBitCount)
        let shift = UInt64(64 - bits)
        func bucket(_ element: Element) -> Int { Int(truncatingIfNeeded: digest(element).high >> shift) }
        var ends = [Int](repeating: 0, count: 1 << bits)
        for element in self { ends[bucket(element)] += 1 }
        for index in ends.indices.dropFirst() { ends[index] += ends[index - 1] }
        let starts = [0] + ends.dropLast()
        // In place, as an American flag sort's pass: each element is swapped into the next free
        // place of its bucket until the one at the current place belongs there.
        var next = starts
        withUnsafeMutableBufferPointer { elements in
            for current in ends.indices {
                while next[current] < ends[current] {
                    let target = bucket(elements[next[current]])
                    if target == current {
                        next[current] += 1
                    } else {
                        elements.swapAt(next[current], next[target])
                        next[target] += 1
                    }
                }
            }
        }
        return zip(starts, ends).compactMap { $0 < $1 ? $0..<$1 : nil }
    }
}
