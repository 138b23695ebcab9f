/// XXH64, the checksum stored with every blob and the base of the key digest.
///
/// Chosen because it runs at memory speed in plain Swift (no dependency) and is a published,
/// testable algorithm; it guards against corruption, not against an adversary.
enum XXHash64 {
    private static let prime1: UInt64 = 11_400_714_785_074_694_791
    private static let prime2: UInt64 = 14_029_467_366_897_019_727
    private static let prime3: UInt64 = 1_609_587_929_392_839_161
    private static let prime4: UInt64 = 9_650_029_242_287_828_579
    private static let prime5: UInt64 = 2_870_177_450_012_600_261

    static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            return avalanche(seed &+ prime5)
        }
        let length = bytes.count
        var offset = 0
        var hash: UInt64
        if length >= 32 {
            var v1 = seed &+ prime1 &+ prime2
            var v2 = seed &+ prime2
            var v3 = seed
            var v4 = seed &- prime1
            while offset + 32 <= length {
                v1 = round(v1, load64(base, offset))
                v2 = round(v2, load64(base, offset + 8))
                v3 = round(v3, load64(base, offset + 16))
                v4 = round(v4, load64(base, offset + 24))
                offset += 32
            }
            hash = rotate(v1, 1) &+ rotate(v2, 7) &+ rotate(v3, 12) &+ rotate(v4, 18)
            hash = mergeRound(hash, v1)
            hash = mergeRound(hash, v2)
            hash = mergeRound(hash, v3)
            hash = mergeRound(hash, v4)
        } else {
            hash = seed &+ prime5
        }
        hash &+= UInt64(length)
        while offset + 8 <= length {
            hash ^= round(0, load64(base, offset))
            hash = rotate(hash, 27) &* prime1 &+ prime4
            offset += 8
        }
        if offset + 4 <= length {
            let word = UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            hash ^= UInt64(word) &* prime1
            hash = rotate(hash, 23) &* prime2 &+ prime3
            offset += 4
        }
        while offset < length {
            hash ^= UInt64(base.load(fromByteOffset: offset, as: UInt8.self)) &* prime5
            hash = rotate(hash, 11) &* prime1
            offset += 1
        }
        return avalanche(hash)
    }

    static func hash(_ string: String, seed: UInt64 = 0) -> UInt64 {
        var copy = string
        return copy.withUTF8 { hash(UnsafeRawBufferPointer($0), seed: seed) }
    }

    @inline(__always)
    private static func load64(_ base: UnsafeRawPointer, _ offset: Int) -> UInt64 {
        UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    @inline(__always)
    private static func rotate(_ value: UInt64, _ bits: UInt64) -> UInt64 {
        (value << bits) | (value >> (64 - bits))
    }

    @inline(__always)
    private static func round(_ accumulator: UInt64, _ input: UInt64) -> UInt64 {
        rotate(accumulator &+ input &* prime2, 31) &* prime1
    }

    @inline(__always)
    private static func mergeRound(_ accumulator: UInt64, _ value: UInt64) -> UInt64 {
        (accumulator ^ round(0, value)) &* prime1 &+ prime4
    }

    @inline(__always)
    private static func avalanche(_ value: UInt64) -> UInt64 {
        var hash = value
        hash ^= hash >> 33
        hash &*= prime2
        hash ^= hash >> 29
        hash &*= prime3
        hash ^= hash >> 32
        return hash
    }
}
