/// The memory tier's key for an image (the configured cache key, partitioned by credentials as the
/// HTTP cache partitions its own), with its hash computed once.
///
/// A memory hit hashes its key on every call, and hashing a whole URL is a large part of such a
/// hit. A request keeps the key of its URL (see ``ImageRequest``), so the hash is paid when the
/// request is made, once, not on every load of it.
struct MemoryKey: Hashable, Sendable {
    let string: String
    private let hash: Int

    init(_ string: String) {
        self.string = string
        hash = string.hashValue
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(hash)
    }

    func _rawHashValue(seed: Int) -> Int {
        var mixed = UInt64(UInt(bitPattern: hash ^ seed))
        mixed = (mixed ^ (mixed >> 32)) &* 0xD6E8_FEB8_6659_FD93
        mixed = (mixed ^ (mixed >> 32)) &* 0xD6E8_FEB8_6659_FD93
        return Int(truncatingIfNeeded: mixed ^ (mixed >> 32))
    }

    static func == (lhs: MemoryKey, rhs: MemoryKey) -> Bool {
        lhs.hash == rhs.hash && lhs.string == rhs.string
    }

    /// The key of this image's variant `name` (``ImageRequest/variantName``): the key, a NUL
    /// (which no URL or HTTP storage key holds, so a variant never answers for an HTTP entry) and
    /// the name.
    func variant(named name: String) -> MemoryKey {
        MemoryKey(string + "\u{0}" + name)
    }
}
