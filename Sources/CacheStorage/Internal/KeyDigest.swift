/// The fixed-size (16-byte) name under which an entry lives in LMDB.
///
/// Two XXH64 hashes of the key with different seeds. A collision is harmless: the record beside
/// the blob keeps the full key, reads compare it, and a put for a colliding key replaces the other.
struct KeyDigest: Hashable, Sendable {
    static let byteCount = 16

    let high: UInt64
    let low: UInt64

    init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    init(key: String) {
        self.init(high: XXHash64.hash(key, seed: 0), low: XXHash64.hash(key, seed: 0x9E37_79B9_7F4A_7C15))
    }

    /// Reads a digest back from its 16 stored bytes; nil when the length is wrong.
    init?(bytes: UnsafeRawBufferPointer) {
        guard bytes.count == Self.byteCount else { return nil }
        high = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
        low = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
    }

    /// Big-endian bytes, so LMDB's byte order and SQLite's BLOB order agree.
    func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        var pair = (high.bigEndian, low.bigEndian)
        return try withUnsafeBytes(of: &pair) { try body($0) }
    }

    var bytes: [UInt8] {
        withBytes { Array($0) }
    }

    var hexString: String {
        bytes.map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }.joined()
    }
}

extension KeyDigest: Comparable {
    /// The order LMDB keeps digests in: their big-endian bytes (``withBytes(_:)``) compared as
    /// bytes, which is `high`, then `low`, compared as numbers.
    static func < (lhs: KeyDigest, rhs: KeyDigest) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }
}
