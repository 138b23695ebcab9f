import Foundation

/// Checkable entry bytes derived from the key `<prefix>/<n>/<length>`, so any process (a test, or
/// the storage-worker it started) can check an entry it did not write.
public enum TestPayload {
    /// The key for payload `number` of `length` bytes.
    public static func key(prefix: String, number: Int, length: Int) -> String { "\(prefix)/\(number)/\(length)" }

    /// The bytes the entry for `key` must hold; nil when `key` is not of that form.
    public static func bytes(for key: String) -> Data? {
        bytes(for: key, generation: 0)
    }

    /// The bytes of generation `generation` of `key`: each put of a key writes a new generation
    /// (recorded with the entry), so an old record paired with a new blob, or the reverse, shows.
    public static func bytes(for key: String, generation: UInt64) -> Data? {
        let parts = key.split(separator: "/")
        guard parts.count >= 3, let number = Int(parts[parts.count - 2]), let length = Int(parts[parts.count - 1]),
            length >= 0 else { return nil }
        let salt = generation &* 0xD6E8_FEB8_6659_FD93
        // Eight bytes from each mixed word, written through a raw buffer: tests and workers build
        // these bytes for every entry they write or check, unoptimized, so the loop stays plain.
        var data = Data(count: length)
        data.withUnsafeMutableBytes { raw in
            var offset = 0
            var word = UInt64(truncatingIfNeeded: number) << 32
            while offset < length {
                var mixed = (word ^ salt) &* 0x9E37_79B9_7F4A_7C15
                mixed = (mixed ^ (mixed >> 29)) &* 0xBF58_476D_1CE4_E5B9
                mixed ^= mixed >> 32
                if length - offset >= 8 {
                    raw.storeBytes(of: mixed.littleEndian, toByteOffset: offset, as: UInt64.self)
                    offset += 8
                } else {
                    while offset < length {
                        raw[offset] = UInt8(truncatingIfNeeded: mixed)
                        mixed >>= 8
                        offset += 1
                    }
                }
                word &+= 1
            }
        }
        return data
    }
}

extension TestPayload {
    /// The entity tag a worker stores with generation `generation`: `g<generation>`.
    public static func etag(generation: UInt64) -> String { "g\(generation)" }

    /// The generation an entity tag names, if it is one of ``etag(generation:)``'s.
    public static func generation(fromETag etag: String?) -> UInt64? {
        guard let etag, etag.hasPrefix("g") else { return nil }
        return UInt64(etag.dropFirst())
    }

    /// Whether `data` is exactly what `key` holds at the generation its `etag` names.
    public static func matches(_ data: Data, key: String, etag: String?) -> Bool {
        guard let generation = generation(fromETag: etag) else { return data == bytes(for: key) }
        return data == bytes(for: key, generation: generation)
    }
}
